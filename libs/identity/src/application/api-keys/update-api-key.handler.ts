import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog, previousAttributes } from '@app/shared-kernel';
import { ApiKeyRepository } from '../../domain/repositories';
import { CredentialChanges } from '../authentication/credential-changes';
import { findVisibleForUpdate } from './visible-api-key';
import { apiKeyResponse } from './api-key-response';
import { toApiKeyView } from './api-key.view';
import { minterLimits, minterOf } from './minter';
import { UpdateApiKeyCommand } from './update-api-key.command';

/**
 * Renames or re-scopes a key (merge-patch). Within the caller's own grant, as minting is: scopes
 * it holds, addresses within its own. A change of what the key grants reaches every instance's
 * credential cache through CredentialChanges before the transaction commits, and the change writes
 * `api_key.updated` with its previous_attributes; a patch that changes nothing writes nothing (no
 * save, no audit entry, no event).
 */
@CommandHandler(UpdateApiKeyCommand)
export class UpdateApiKeyHandler implements ICommandHandler<UpdateApiKeyCommand> {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly credentials: CredentialChanges,
    private readonly events: EventLog,
  ) {}

  @Transactional()
  async execute({ actor, apiKeyId, input }: UpdateApiKeyCommand) {
    // A key updating another locks both (its own bounds what it may grant): in id order, so two
    // keys updating each other at once never deadlock.
    const ownFirst = actor.principal.type === 'api_key' && actor.principal.credentialId < apiKeyId;
    const ownLimits = ownFirst ? await minterLimits(actor, this.keys) : undefined;
    const key = await findVisibleForUpdate(this.keys, actor, apiKeyId);
    const minter = minterOf(actor, ownLimits ?? (await minterLimits(actor, this.keys)));
    const now = this.clock.now();
    const before = key.snapshot;
    const shownBefore = apiKeyResponse(toApiKeyView(key, now));
    const changed = key.update(input, minter, now);
    if (changed.length > 0) {
      await this.keys.save(key);
      await this.credentials.apiKeyChanged(apiKeyId);
      const after = key.snapshot;
      await this.audit.record(actor, {
        action: 'api_key.updated',
        resourceType: 'api_key',
        resourceId: apiKeyId,
        data: {
          changed,
          name: after.name,
          scopes: after.scopes,
          allowed_ips: after.allowedIps.entries,
          previous: { name: before.name, scopes: before.scopes, allowed_ips: before.allowedIps.entries },
        },
      });
      const shown = apiKeyResponse(toApiKeyView(key, now));
      await this.events.publish(actor, [
        { type: 'api_key.updated', object: shown, previousAttributes: previousAttributes(shownBefore, shown) },
      ]);
    }
    return toApiKeyView(key, now);
  }
}
