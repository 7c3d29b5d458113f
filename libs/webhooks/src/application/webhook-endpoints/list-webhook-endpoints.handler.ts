import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Clock, CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { ListWebhookEndpointsQuery } from './list-webhook-endpoints.query';
import { ENDPOINT_COLUMNS, EndpointRow, toView } from './webhook-endpoint-rows';

@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, limit, cursor }: ListWebhookEndpointsQuery) {
    const page = await keysetPage<EndpointRow>(
      this.cursors,
      { list: 'webhook_endpoints', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
            WHERE organization_id = $1 AND workspace_id = $2
              AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $5`,
          [actor.organizationId, actor.workspaceId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    const now = this.clock.now();
    return { ...page, data: page.data.map((row) => toView(row, now)) };
  }
}
