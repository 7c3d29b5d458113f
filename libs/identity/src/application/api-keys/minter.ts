import { Actor } from '@app/shared-kernel';
import { grantableKeyTypes, Minter, MinterLimits, UNLIMITED_MINTER } from '../../domain/api-key';
import { ApiKeyRepository } from '../../domain/repositories';

export function minterOf(actor: Actor, limits: MinterLimits = UNLIMITED_MINTER): Minter {
  return {
    type: actor.principal.type,
    id: actor.principal.id,
    scopes: actor.principal.scopes,
    keyTypes: grantableKeyTypes(actor.workspaceMode),
    ...limits,
  };
}

/**
 * An API key mints within its own expiry and addresses. A user's session does not bound what it
 * mints: the session is how the human signs in, not the extent of their authority (as at Stripe,
 * a key made in the dashboard outlives the dashboard session), and sessions have no address list.
 */
export async function minterLimits(actor: Actor, keys: ApiKeyRepository): Promise<MinterLimits> {
  if (actor.principal.type !== 'api_key') return UNLIMITED_MINTER;
  const own = await keys.findForUpdate(actor.organizationId, actor.principal.credentialId);
  // The guard just authenticated it; a key gone meanwhile mints nothing.
  if (!own) return { expiresAt: new Date(0), allowedIps: UNLIMITED_MINTER.allowedIps };
  return { expiresAt: own.snapshot.expiresAt, allowedIps: own.snapshot.allowedIps };
}
