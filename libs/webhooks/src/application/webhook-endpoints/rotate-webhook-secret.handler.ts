import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { newSigningSecret, SECRET_OVERLAP_MS } from '../../domain/webhook-endpoint';
import { WebhookSecretVault } from '../secret-vault';
import { RotateWebhookSecretCommand } from './rotate-webhook-secret.command';
import { WebhookEndpointWithSecret } from './webhook-endpoint.view';
import { ENDPOINT_COLUMNS, EndpointRow, findEndpoint, toView } from './webhook-endpoint-rows';

@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly vault: WebhookSecretVault,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /**
   * A new secret signs from now on; the one it replaces keeps signing beside it for 24 hours
   * (two signatures per delivery). A second rotation within the overlap retires the older one.
   */
  async execute({ actor, endpointId }: RotateWebhookSecretCommand): Promise<WebhookEndpointWithSecret> {
    const secret = newSigningSecret();
    return this.txHost.withTransaction(async () => {
      const current = await findEndpoint(this.txHost.tx, actor, endpointId, true);
      const now = this.clock.now();
      const [rows]: [EndpointRow[], number] = await this.txHost.tx.query(
        `UPDATE webhook_endpoints
            SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = $4, secret_sealed = $5, updated_at = $6
          WHERE organization_id = $1 AND workspace_id = $2 AND id = $3
          RETURNING ${ENDPOINT_COLUMNS}`,
        [
          actor.organizationId,
          actor.workspaceId,
          current.id,
          new Date(now.getTime() + SECRET_OVERLAP_MS),
          this.vault.seal(secret),
          now,
        ],
      );
      await this.audit.record(actor, {
        action: 'webhook_endpoint.secret_rotated',
        resourceType: 'webhook_endpoint',
        resourceId: current.id,
      });
      return { endpoint: toView(rows[0], now), secret };
    });
  }
}
