import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { validDescription, validEnabledEvents, validMetadata, validStatus } from '../../domain/webhook-endpoint';
import { WebhookUrlGuard } from '../url-guard';
import { UpdateWebhookEndpointCommand } from './update-webhook-endpoint.command';
import { WebhookEndpointView } from './webhook-endpoint.view';
import { ENDPOINT_COLUMNS, EndpointRow, findEndpoint, toView } from './webhook-endpoint-rows';

@CommandHandler(UpdateWebhookEndpointCommand)
export class UpdateWebhookEndpointHandler implements ICommandHandler<UpdateWebhookEndpointCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly urls: WebhookUrlGuard,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** Merge-patch: an omitted or null field is left as it is. */
  async execute({ actor, endpointId, input }: UpdateWebhookEndpointCommand): Promise<WebhookEndpointView> {
    const given = (value: unknown) => value !== undefined && value !== null;
    const enabledEvents = given(input.enabledEvents) ? validEnabledEvents(input.enabledEvents) : null;
    const description = given(input.description) ? validDescription(input.description) : null;
    const metadata = given(input.metadata) ? validMetadata(input.metadata) : null;
    const status = given(input.status) ? validStatus(input.status) : null;
    if (given(input.url)) this.urls.parse(input.url);
    // Unknown ids answer 404 before any resolution of the URL.
    await findEndpoint(this.txHost.tx, actor, endpointId);
    const url = given(input.url) ? (await this.urls.check(input.url)).url.href : null;
    return this.txHost.withTransaction(async () => {
      const current = await findEndpoint(this.txHost.tx, actor, endpointId, true);
      const now = this.clock.now();
      const enabling = status === 'enabled' && current.status === 'disabled';
      const disabling = status === 'disabled' && current.status === 'enabled';
      const [rows]: [EndpointRow[], number] = await this.txHost.tx.query(
        `UPDATE webhook_endpoints
            SET url = coalesce($4, url), enabled_events = coalesce($5, enabled_events),
                description = CASE WHEN $6::boolean THEN $7 ELSE description END,
                metadata = coalesce($8::jsonb, metadata),
                status = CASE WHEN $9::boolean THEN 'enabled' WHEN $10::boolean THEN 'disabled' ELSE status END,
                disabled_reason = CASE WHEN $9::boolean THEN NULL WHEN $10::boolean THEN 'manual' ELSE disabled_reason END,
                disabled_at = CASE WHEN $9::boolean THEN NULL WHEN $10::boolean THEN $11 ELSE disabled_at END,
                failing_since = CASE WHEN $9::boolean THEN NULL ELSE failing_since END,
                updated_at = $11
          WHERE organization_id = $1 AND workspace_id = $2 AND id = $3
          RETURNING ${ENDPOINT_COLUMNS}`,
        [
          actor.organizationId,
          actor.workspaceId,
          current.id,
          url,
          enabledEvents,
          given(input.description),
          description === '' ? null : description,
          metadata === null ? null : JSON.stringify(metadata),
          enabling,
          disabling,
          now,
        ],
      );
      await this.audit.record(actor, {
        action: 'webhook_endpoint.updated',
        resourceType: 'webhook_endpoint',
        resourceId: current.id,
      });
      return toView(rows[0], now);
    });
  }
}
