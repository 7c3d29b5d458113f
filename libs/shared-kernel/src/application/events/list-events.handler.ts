import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CursorCodec } from '../../cursor';
import { keysetPage } from '../../keyset-page';
import type { Page } from '../../pagination';
import { ListEventsQuery } from './list-events.query';
import { COLUMNS, EventResponse, EventRow, toResponse } from './event-response';
import { eventTypesOf } from '../../events/event-type-filter';

@QueryHandler(ListEventsQuery)
export class ListEventsHandler implements IQueryHandler<ListEventsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListEventsQuery): Promise<Page<EventResponse>> {
    const types = filters.type === undefined ? null : eventTypesOf(filters.type);
    const bound = {
      type: types,
      created_after: filters.createdAfter?.toISOString() ?? null,
      created_before: filters.createdBefore?.toISOString() ?? null,
    };
    const page = await keysetPage<EventRow>(
      this.cursors,
      { list: 'events', filters: bound, order: 'sequence:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${COLUMNS} FROM events
            WHERE organization_id = $1 AND workspace_id = $2
              AND ($3::text[] IS NULL OR type = ANY($3))
              AND ($4::timestamptz IS NULL OR created_at >= $4) AND ($5::timestamptz IS NULL OR created_at < $5)
              AND ($6::bigint IS NULL OR sequence < $6)
            ORDER BY sequence DESC LIMIT $7`,
          [actor.organizationId, actor.workspaceId, types, bound.created_after, bound.created_before, after?.[0] ?? null, rows],
        ),
      (row) => [row.sequence],
    );
    return { ...page, data: page.data.map(toResponse) };
  }
}
