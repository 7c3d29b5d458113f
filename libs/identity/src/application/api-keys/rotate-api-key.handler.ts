import { Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, DomainError, EventLog, JobQueue, previousAttributes } from '@app/shared-kernel';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyRepository } from '../../domain/repositories';
import { CredentialChanges } from '../authentication/credential-changes';
import { RevokeApiKeyCommand, RotateApiKeyCommand } from './api-key-lifecycle.commands';
import { toApiKeyView } from './api-key.view';
import { apiKeyResponse } from './api-key-response';
import { minterOf } from './minter';

export const COMPLETE_ROTATION_JOB = 'api_keys.complete-rotation';

export function apiKeyNotFound(): DomainError {
  return new DomainError('not_found', 'API_KEY_NOT_FOUND', 'No such API key.', { param: 'id' });
}

/** The key, locked, if the actor may see it: a key type it may not grant (sk_live, to a sandbox principal) is unknown to it. */
export async function findVisibleForUpdate(keys: ApiKeyRepository, actor: Actor, apiKeyId: string): Promise<ApiKey> {
  const key = await keys.findForUpdate(actor.organizationId, apiKeyId);
  if (!key || !minterOf(actor).keyTypes.has(key.snapshot.keyType)) throw apiKeyNotFound();
  return key;
}

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

/** Ends a rotation's grace: the old key is revoked for good when its `revokes_at` comes. */
@Injectable()
export class RotationCompleter implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly credentials: CredentialChanges,
  ) {}

  onModuleInit(): void {
    this.jobs.define<{ organizationId: string; apiKeyId: string }>({
      name: COMPLETE_ROTATION_JOB,
      handler: ({ organizationId, apiKeyId }) => this.complete(organizationId, apiKeyId),
    });
  }

  @Transactional()
  async complete(organizationId: string, apiKeyId: string): Promise<void> {
    const key: ApiKey | undefined = await this.keys.findForUpdate(organizationId, apiKeyId);
    if (!key || !key.completeRotation(this.clock.now())) return;
    await this.keys.save(key);
    await this.credentials.apiKeyChanged(apiKeyId);
    await this.audit.record(
      { organizationId, workspaceId: null, principal: { type: 'system', id: null } },
      { action: 'api_key.rotation_completed', resourceType: 'api_key', resourceId: apiKeyId },
    );
  }
}
