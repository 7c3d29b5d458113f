import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, newId } from '@app/shared-kernel';
import { newSigningSecret, validDescription, validEnabledEvents, validMetadata } from '../../domain/webhook-endpoint';
import { WebhookSecretVault } from '../secret-vault';
import { WebhookUrlGuard } from '../url-guard';
import { CreateWebhookEndpointCommand } from './create-webhook-endpoint.command';
import { WebhookEndpointWithSecret } from './webhook-endpoint.view';
import { ENDPOINT_COLUMNS, EndpointRow, toView } from './webhook-endpoint-rows';

@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly urls: WebhookUrlGuard,
    private readonly vault: WebhookSecretVault,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, input }: CreateWebhookEndpointCommand): Promise<WebhookEndpointWithSecret> {
    const enabledEvents = validEnabledEvents(input.enabledEvents);
    const description = validDescription(input.description);
    const metadata = validMetadata(input.metadata);
    // Resolved before the transaction: a slow name server never holds a database connection.
    const { url } = await this.urls.check(input.url);
    const secret = newSigningSecret();
    const id = newId();
    return this.txHost.withTransaction(async () => {
      const now = this.clock.now();
      const rows: EndpointRow[] = await this.txHost.tx.query(
        `INSERT INTO webhook_endpoints (organization_id, workspace_id, id, url, description, metadata, enabled_events, status,
           secret_sealed, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'enabled', $8, $9, $9)
         RETURNING ${ENDPOINT_COLUMNS}`,
        [
          actor.organizationId,
          actor.workspaceId,
          id,
          url.href,
          description,
          JSON.stringify(metadata),
          enabledEvents,
          this.vault.seal(secret),
          now,
        ],
      );
      await this.audit.record(actor, { action: 'webhook_endpoint.created', resourceType: 'webhook_endpoint', resourceId: id });
      return { endpoint: toView(rows[0]), secret };
    });
  }
}
