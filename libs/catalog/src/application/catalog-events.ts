import { Injectable } from '@nestjs/common';
import { Query, QueryBus } from '@nestjs/cqrs';
import { Actor, EventDraft, EventLog, EventType, previousAttributes, Principal } from '@app/shared-kernel';
import type { ModedTenant } from './job-tenants';

/** A read of the resource a command changed: the query its GET route runs. */
type Read<R> = (result: R) => Query<object>;

/** An event whose object is what a GET query answers, read as the event is written. */
export interface ReadEvent {
  type: EventType;
  read: (reader: Actor) => Query<object>;
  previousAttributes?: Record<string, unknown>;
}

/**
 * Background work (a job, a cascade, a fired release) has no principal, and the catalog's GET
 * queries read only the tenant of their actor: this one stands in for it, holding no scope.
 */
const BACKGROUND: Principal = { type: 'api_key', id: 'background', credentialId: 'background', human: false, scopes: new Set() };

function readerOf(tenant: ModedTenant): Actor {
  return {
    organizationId: tenant.organizationId,
    workspaceId: tenant.workspaceId,
    workspaceMode: tenant.workspaceMode ?? 'live',
    principal: BACKGROUND,
  };
}

/**
 * The catalog's events. A catalog command answers an id and its route answers the resource's GET
 * (a query that reads in the caller's transaction), so the event's object is that same query, run
 * in the command's transaction right after the change: what the GET answers at that moment,
 * without a second mapper. Updates read it before the change too, for `previous_attributes`.
 */
@Injectable()
export class CatalogEvents {
  constructor(
    private readonly events: EventLog,
    private readonly queries: QueryBus,
  ) {}

  /**
   * Runs the command, then writes its event. `before` is read first when given (a refusal of that
   * read leaves the command to refuse as it would); without `after` (a deletion) the object is the
   * resource as last read, before the change.
   */
  async around<R>(
    actor: Actor,
    type: EventType,
    run: () => Promise<R>,
    reads: { before?: () => Query<object>; after?: Read<R> },
  ): Promise<R> {
    const before = reads.before && (await this.read(reads.before()).catch(() => undefined));
    const result = await run();
    const object = reads.after ? await this.read(reads.after(result)) : before;
    if (!object) throw new Error(`No object to write ${type} with`);
    await this.events.publish(actor, [
      before && reads.after ? { type, object, previousAttributes: previousAttributes(before, object) } : { type, object },
    ]);
    return result;
  }

  /**
   * Writes events of a change already made in the current transaction (a version going live, a
   * run or a migration completing, subscribers moved), each object read by its GET query now.
   * The tenant's mode, when unknown (a job sent without it), is the workspace's own.
   */
  async publish(tenant: ModedTenant, events: readonly ReadEvent[]): Promise<void> {
    if (events.length === 0) return;
    const reader = readerOf(tenant);
    const drafts: EventDraft[] = [];
    for (const event of events) {
      const object = await this.read(event.read(reader));
      drafts.push(
        event.previousAttributes
          ? { type: event.type, object, previousAttributes: event.previousAttributes }
          : { type: event.type, object },
      );
    }
    await this.events.publish(
      { organizationId: tenant.organizationId, workspaceId: tenant.workspaceId, workspaceMode: tenant.workspaceMode },
      drafts,
    );
  }

  /** Writes events whose objects the caller read already (a batch read by one query, with the GET's mapper). */
  async publishRead(tenant: ModedTenant, drafts: readonly EventDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    const json = drafts.map((draft) => ({
      ...draft,
      object: JSON.parse(JSON.stringify(draft.object)) as Record<string, unknown>,
    }));
    await this.events.publish(
      { organizationId: tenant.organizationId, workspaceId: tenant.workspaceId, workspaceMode: tenant.workspaceMode },
      json,
    );
  }

  /** The tenant as a reader for a batch query (see BACKGROUND). */
  readerOf(tenant: ModedTenant): Actor {
    return readerOf(tenant);
  }

  /** The query's answer as the route renders it (JSON: dates as RFC 3339 strings). */
  private async read(query: Query<object>): Promise<Record<string, unknown>> {
    return JSON.parse(JSON.stringify(await this.queries.execute(query))) as Record<string, unknown>;
  }
}
