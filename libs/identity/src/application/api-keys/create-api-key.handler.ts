import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, EventLog, Clock } from '@app/shared-kernel';
import { ApiKey, KeyType } from '../../domain/api-key';
import { ApiKeyRepository } from '../../domain/repositories';
import { toApiKeyView } from './api-key.view';
import { apiKeyResponse } from './api-key-response';
import { CreateApiKeyCommand } from './create-api-key.command';
import { minterLimits, minterOf } from './minter';

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand> {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateApiKeyCommand) {
    const now = this.clock.now();
    // Omitted, the type follows the workspace; whether it may be granted is the key's rule.
    const keyType: KeyType = input.keyType ?? (actor.workspaceMode === 'sandbox' ? 'sk_test' : 'sk_live');
    const { key, secret } = ApiKey.mint({
      ...input,
      organizationId: actor.organizationId,
      keyType,
      minter: minterOf(actor, await minterLimits(actor, this.keys)),
      now,
    });
    await this.keys.insert(key);
    await this.audit.record(actor, {
      action: 'api_key.created',
      resourceType: 'api_key',
      resourceId: key.id,
      data: {
        name: key.snapshot.name,
        key_type: keyType,
        scopes: key.snapshot.scopes,
        allowed_ips: key.snapshot.allowedIps.entries,
        expires_at: key.snapshot.expiresAt?.toISOString() ?? null,
      },
    });
    const view = toApiKeyView(key, now);
    await this.events.publish(actor, [{ type: 'api_key.created', object: apiKeyResponse(view) }]);
    return { key: view, secret };
  }
}
