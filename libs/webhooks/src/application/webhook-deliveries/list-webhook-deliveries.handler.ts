import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { ListWebhookDeliveriesQuery } from './list-webhook-deliveries.query';
import { findEndpoint } from '../webhook-endpoints/webhook-endpoint-rows';
import { DeliveryRow, toDeliveryView } from './webhook-delivery-rows';

@QueryHandler(ListWebhookDeliveriesQuery)
export class ListWebhookDeliveriesHandler implements IQueryHandler<ListWebhookDeliveriesQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, endpointId, limit, cursor, filters }: ListWebhookDeliveriesQuery) {
    const endpoint = await findEndpoint(this.dataSource, actor, endpointId);
    const page = await keysetPage<DeliveryRow>(
      this.cursors,
      {
        list: `webhook_deliveries:${endpoint.id}`,
        filters: { event_id: filters.eventId ?? null, status: filters.status ?? null },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT id, endpoint_id, event_id, event_type, attempt, status, response_status, duration_ms, error, created_at,
                  next_attempt_at
             FROM webhook_deliveries
            WHERE organization_id = $1 AND endpoint_id = $2 AND workspace_id = $3
              AND ($4::uuid IS NULL OR event_id = $4) AND ($5::text IS NULL OR status = $5)
              AND ($6::timestamptz IS NULL OR (created_at, id) < ($6, $7::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $8`,
          [
            actor.organizationId,
            endpoint.id,
            actor.workspaceId,
            filters.eventId ?? null,
            filters.status ?? null,
            after?.[0] ?? null,
            after?.[1] ?? null,
            rows,
          ],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(toDeliveryView) };
  }
}
