import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog, JobQueue, previousAttributes } from '@app/shared-kernel';
import { ApiKeyRepository } from '../../domain/repositories';
import { CredentialChanges } from '../authentication/credential-changes';
import { RotateApiKeyCommand } from './rotate-api-key.command';
import { toApiKeyView } from './api-key.view';
import { apiKeyResponse } from './api-key-response';
import { minterOf } from './minter';
import { findVisibleForUpdate } from './visible-api-key';
import { COMPLETE_ROTATION_JOB } from './rotation-completer';

@CommandHandler(RotateApiKeyCommand)
export class RotateApiKeyHandler implements ICommandHandler<RotateApiKeyCommand> {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly credentials: CredentialChanges,
    private readonly events: EventLog,
  ) {}

  @Transactional()
  async execute({ actor, apiKeyId }: RotateApiKeyCommand) {
    const key = await findVisibleForUpdate(this.keys, actor, apiKeyId);
    const now = this.clock.now();
    const before = apiKeyResponse(toApiKeyView(key, now));
    const { successor, secret } = key.rotate(minterOf(actor), now);
    await this.keys.save(key);
    await this.keys.insert(successor);
    const revokesAt = key.snapshot.revokesAt!;
    await this.jobs.send(
      COMPLETE_ROTATION_JOB,
      { organizationId: actor.organizationId, workspaceMode: actor.workspaceMode },
      { organizationId: actor.organizationId, apiKeyId },
      { startAfter: revokesAt },
    );
    await this.credentials.apiKeyChanged(apiKeyId);
    await this.audit.record(actor, {
      action: 'api_key.rotated',
      resourceType: 'api_key',
      resourceId: apiKeyId,
      data: { successor_id: successor.id, revokes_at: revokesAt.toISOString() },
    });
    const rotatedFrom = toApiKeyView(key, now);
    // The rotated key (now with its revokes_at), as the key list shows it; the successor is listed beside it.
    const after = apiKeyResponse(rotatedFrom);
    await this.events.publish(actor, [
      { type: 'api_key.rotated', object: after, previousAttributes: previousAttributes(before, after) },
    ]);
    return { key: toApiKeyView(successor, now), secret, rotatedFrom };
  }
}
