import { Actor, DomainError } from '@app/shared-kernel';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyRepository } from '../../domain/repositories';
import { minterOf } from './minter';
import { IdentityErrors } from '../../domain/identity-errors';

export function apiKeyNotFound(): DomainError {
  return IdentityErrors.API_KEY_NOT_FOUND.create('No such API key.', { param: 'id' });
}

/** The key, locked, if the actor may see it: a key type it may not grant (sk_live, to a sandbox principal) is unknown to it. */
export async function findVisibleForUpdate(keys: ApiKeyRepository, actor: Actor, apiKeyId: string): Promise<ApiKey> {
  const key = await keys.findForUpdate(actor.organizationId, apiKeyId);
  if (!key || !minterOf(actor).keyTypes.has(key.snapshot.keyType)) throw apiKeyNotFound();
  return key;
}
