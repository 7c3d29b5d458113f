import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { AuditEventView, ListAuditEventsQuery } from './list-audit-events.query';

interface AuditEventRow {
  id: string;
  workspace_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  principal_type: string;
  principal_id: string | null;
  request_id: string | null;
  data: Record<string, unknown>;
  occurred_at: Date;
}

@QueryHandler(ListAuditEventsQuery)
export class ListAuditEventsHandler implements IQueryHandler<ListAuditEventsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListAuditEventsQuery) {
    const bound = {
      resource_type: filters.resourceType ?? null,
      resource_id: filters.resourceId ?? null,
      principal_id: filters.principalId ?? null,
      occurred_after: filters.occurredAfter?.toISOString() ?? null,
      occurred_before: filters.occurredBefore?.toISOString() ?? null,
    };
    const page = await keysetPage<AuditEventRow>(
      this.cursors,
      { list: 'audit_events', filters: bound, order: 'occurred_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT id, workspace_id, action, resource_type, resource_id, principal_type, principal_id, request_id, data, occurred_at
             FROM audit_events
            WHERE organization_id = $1
              AND ($2::text IS NULL OR resource_type = $2) AND ($3::text IS NULL OR resource_id = $3)
              AND ($4::uuid IS NULL OR principal_id = $4)
              AND ($5::timestamptz IS NULL OR occurred_at >= $5) AND ($6::timestamptz IS NULL OR occurred_at < $6)
              AND ($7::timestamptz IS NULL OR (occurred_at, id) < ($7, $8::uuid))
            ORDER BY occurred_at DESC, id DESC LIMIT $9`,
          [
            actor.organizationId,
            bound.resource_type,
            bound.resource_id,
            bound.principal_id,
            bound.occurred_after,
            bound.occurred_before,
            after?.[0] ?? null,
            after?.[1] ?? null,
            rows,
          ],
        ),
      (row) => [row.occurred_at.toISOString(), row.id],
    );
    return {
      ...page,
      data: page.data.map((row): AuditEventView => ({
        id: row.id,
        workspaceId: row.workspace_id,
        action: row.action,
        resourceType: row.resource_type,
        resourceId: row.resource_id,
        principal: { type: row.principal_type, id: row.principal_id },
        requestId: row.request_id,
        data: row.data,
        occurredAt: row.occurred_at,
      })),
    };
  }
}
