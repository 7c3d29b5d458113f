import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { isDeepStrictEqual } from 'node:util';
import { Clock } from '../clock';
import { newId } from '../ids';
import { executeWrites, SqlWrite } from '../persistence/sql-write';
import { IDEMPOTENCY_KEY_KEY, REQUEST_ID_KEY } from '../request-context';
import { EventType, isEventType } from './event-types';
import { EventPublishedHook } from './event-published-hook';

/** Where an event happened: the workspace of the change (a sandbox change stays in the sandbox). */
export interface EventTenant {
  organizationId: string;
  workspaceId: string;
  /** Known to a request (the actor's); background work leaves it out and the workspace row says. */
  workspaceMode?: 'live' | 'sandbox';
}

/** What a context hands over: the type and the resource exactly as its GET answers it now. */
export interface EventDraft {
  type: EventType;
  object: Record<string, unknown>;
  /** For updates: the changed fields' values before the change (see `previousAttributes`). */
  previousAttributes?: Record<string, unknown>;
}

/** An event as written, before its statement ran (its `sequence` is assigned by that statement). */
export interface WrittenEvent {
  id: string;
  type: EventType;
  organizationId: string;
  workspaceId: string;
  createdAt: Date;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  request: { id: string | null; idempotency_key: string | null } | null;
}

/** The CTE that bumps the workspace's counter; the events' INSERT reads the new value from it. */
const SEQUENCE_CTE = 'event_sequence';

/**
 * The CTE of the events' INSERT, which RETURNs the rows as written (every column of `events`):
 * a write the EventPublishedHook answers reads them from it, in the same statement (their
 * `sequence` and `livemode` exist only there).
 */
export const EVENT_ROWS_CTE = 'event_rows';

/**
 * The public event log (api-contract §4), the outbox of every context's state changes: each
 * committed change writes its events in its own transaction, in the workspace where it happened.
 *
 * Writing costs no extra round trip: `stage` answers the writes (the workspace's sequence counter,
 * then one INSERT of every event of the decision), which a context combines into the statement it
 * runs anyway (a wallet's `save(…, ...writes)`); `publish` runs them on their own where there is
 * no such statement. The counter row `event_sequences (organization_id, workspace_id)` makes
 * `sequence` increase per workspace in commit order with no gaps: a transaction holds it from its
 * event write to its commit, so a context writes its events in the last statement of its
 * transaction (then the row is held for one round trip, and never while waiting on another lock).
 * Every statement names organization_id, so on Citus it routes to the organization's shard.
 */
@Injectable()
export class EventLog {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly cls: ClsService,
    private readonly hook: EventPublishedHook,
  ) {}

  /** The writes of these events (none for no drafts), plus what the hook adds, for the caller's statement. */
  async stage(tenant: EventTenant, drafts: readonly EventDraft[]): Promise<SqlWrite[]> {
    if (drafts.length === 0) return [];
    const events = drafts.map((draft) => this.toEvent(tenant, draft));
    return [...eventWrites(tenant, events), ...(await this.hook.written(events, tenant))];
  }

  /** Writes the events in a statement of their own, inside the caller's transaction. */
  async publish(tenant: EventTenant, drafts: readonly EventDraft[]): Promise<void> {
    if (!this.txHost.isTransactionActive()) throw new Error('EventLog.publish must run inside a transaction');
    await executeWrites(this.txHost.tx, await this.stage(tenant, drafts));
  }

  private toEvent(tenant: EventTenant, draft: EventDraft): WrittenEvent {
    // Guards every context: a type outside the catalog never reaches the table.
    if (!isEventType(draft.type)) throw new Error(`${String(draft.type)} is not an event type of the catalog`);
    const requestId = this.cls.isActive() ? (this.cls.get<string | undefined>(REQUEST_ID_KEY) ?? null) : null;
    const idempotencyKey = this.cls.isActive() ? (this.cls.get<string | undefined>(IDEMPOTENCY_KEY_KEY) ?? null) : null;
    return {
      id: newId(),
      type: draft.type,
      organizationId: tenant.organizationId,
      workspaceId: tenant.workspaceId,
      createdAt: this.clock.now(),
      data:
        draft.previousAttributes === undefined
          ? { object: draft.object }
          : { object: draft.object, previous_attributes: draft.previousAttributes },
      request: requestId === null ? null : { id: requestId, idempotency_key: idempotencyKey },
    };
  }
}

function eventWrites(tenant: EventTenant, events: readonly WrittenEvent[]): SqlWrite[] {
  const first = events[0];
  return [
    {
      name: SEQUENCE_CTE,
      text: `INSERT INTO event_sequences (organization_id, workspace_id, last_sequence) VALUES ($1, $2, $3)
        ON CONFLICT (organization_id, workspace_id) DO UPDATE SET last_sequence = event_sequences.last_sequence + EXCLUDED.last_sequence
        RETURNING last_sequence`,
      values: [tenant.organizationId, tenant.workspaceId, events.length],
    },
    {
      name: EVENT_ROWS_CTE,
      text: `INSERT INTO events (organization_id, id, workspace_id, livemode, type, sequence, data, request_id, idempotency_key, created_at)
        SELECT $1, e.id, $2,
               COALESCE($3::boolean, (SELECT w.mode = 'live' FROM workspaces w WHERE w.organization_id = $1 AND w.id = $2)),
               e.type, s.last_sequence - $4 + e.ord, e.data, $5, $6, $7
          FROM ${SEQUENCE_CTE} s, unnest($8::uuid[], $9::text[], $10::jsonb[]) WITH ORDINALITY AS e (id, type, data, ord)
        RETURNING *`,
      values: [
        tenant.organizationId,
        tenant.workspaceId,
        tenant.workspaceMode === undefined ? null : tenant.workspaceMode === 'live',
        events.length,
        first.request?.id ?? null,
        first.request?.idempotency_key ?? null,
        first.createdAt,
        events.map((event) => event.id),
        events.map((event) => event.type),
        events.map((event) => JSON.stringify(event.data)),
      ],
    },
  ];
}

/**
 * `previous_attributes` of an update: for every top-level field whose value changed, its value
 * before, as JSON. Both sides come from the resource's response mapper.
 */
export function previousAttributes(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const was = JSON.parse(JSON.stringify(before)) as Record<string, unknown>;
  const now = JSON.parse(JSON.stringify(after)) as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(was)) {
    if (!isDeepStrictEqual(was[key], now[key])) changed[key] = was[key];
  }
  return changed;
}
