import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import type { Actor } from '../actor';
import { CursorCodec } from '../cursor';
import { DomainError, invalidParameter } from '../domain-error';
import { isUuid } from '../ids';
import { keysetPage } from '../keyset-page';
import type { Page } from '../pagination';
import { EVENT_TYPES, EventType, isEventType } from './event-types';

/** An event as the API answers it (api-contract §4). */
export interface EventResponse {
  id: string;
  object: 'event';
  type: EventType;
  created_at: string;
  sequence: number;
  workspace_id: string;
  livemode: boolean;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  request: { id: string | null; idempotency_key: string | null } | null;
}

export interface EventFilters {
  /** The `type` parameter as sent: a comma list of exact types, `prefix.*` and `*`. */
  type?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** The caller's workspace's events, newest first (by sequence, the workspace's commit order). */
export class ListEventsQuery extends Query<Page<EventResponse>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: EventFilters,
  ) {
    super();
  }
}

export class GetEventQuery extends Query<EventResponse> {
  constructor(
    readonly actor: Actor,
    readonly eventId: string,
  ) {
    super();
  }
}

/**
 * The catalog types a `type` filter names: each comma-separated item is an exact type, `prefix.*`
 * (every type under that prefix: `wallet.*` takes `wallet.hold.created` too) or `*`. An item that
 * names no type of the catalog is refused (400), so a typo never reads as "no events".
 */
export function eventTypesOf(filter: string): EventType[] {
  const types = new Set<EventType>();
  for (const raw of filter.split(',')) {
    const item = raw.trim();
    const matched =
      item === '*'
        ? [...EVENT_TYPES]
        : item.endsWith('.*')
          ? EVENT_TYPES.filter((type) => type.startsWith(item.slice(0, -1)))
          : isEventType(item)
            ? [item]
            : [];
    if (matched.length === 0) {
      throw invalidParameter(
        'type',
        'INVALID_VALUE',
        `type takes event types of the catalog, prefix.* or *, separated by commas; ${JSON.stringify(item.slice(0, 100))} names none.`,
      );
    }
    for (const type of matched) types.add(type);
  }
  return [...types].sort();
}

interface EventRow {
  id: string;
  type: EventType;
  created_at: Date;
  sequence: string;
  workspace_id: string;
  livemode: boolean;
  data: EventResponse['data'];
  request_id: string | null;
  idempotency_key: string | null;
}

const COLUMNS = 'id, type, created_at, sequence, workspace_id, livemode, data, request_id, idempotency_key';

function toResponse(row: EventRow): EventResponse {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    created_at: row.created_at.toISOString(),
    sequence: Number(row.sequence),
    workspace_id: row.workspace_id,
    livemode: row.livemode,
    data: row.data,
    request: row.request_id === null ? null : { id: row.request_id, idempotency_key: row.idempotency_key },
  };
}

export function eventNotFound(): DomainError {
  return new DomainError('not_found', 'EVENT_NOT_FOUND', 'No such event.', { param: 'id' });
}

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

@QueryHandler(GetEventQuery)
export class GetEventHandler implements IQueryHandler<GetEventQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, eventId }: GetEventQuery): Promise<EventResponse> {
    if (!isUuid(eventId)) throw eventNotFound();
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM events WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [actor.organizationId, actor.workspaceId, eventId],
    );
    if (!rows[0]) throw eventNotFound();
    return toResponse(rows[0]);
  }
}
