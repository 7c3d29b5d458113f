import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog, previousAttributes } from '@app/shared-kernel';
import { ApiKeyRepository } from '../../domain/repositories';
import { CredentialChanges } from '../authentication/credential-changes';
import { RevokeApiKeyCommand } from './revoke-api-key.command';
import { toApiKeyView } from './api-key.view';
import { apiKeyResponse } from './api-key-response';
import { minterOf } from './minter';
import { findVisibleForUpdate } from './visible-api-key';

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly credentials: CredentialChanges,
    private readonly events: EventLog,
  ) {}

  @Transactional()
  async execute({ actor, apiKeyId }: RevokeApiKeyCommand) {
    const key = await findVisibleForUpdate(this.keys, actor, apiKeyId);
    const now = this.clock.now();
    const alreadyRevoked = key.snapshot.revokedAt !== null;
    const before = apiKeyResponse(toApiKeyView(key, now));
    key.revoke(minterOf(actor), now);
    if (!alreadyRevoked) {
      await this.keys.save(key);
      await this.credentials.apiKeyChanged(apiKeyId);
      await this.audit.record(actor, { action: 'api_key.revoked', resourceType: 'api_key', resourceId: apiKeyId });
      const after = apiKeyResponse(toApiKeyView(key, now));
      await this.events.publish(actor, [
        { type: 'api_key.revoked', object: after, previousAttributes: previousAttributes(before, after) },
      ]);
    }
    return toApiKeyView(key, now);
  }
}
