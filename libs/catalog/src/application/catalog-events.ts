import { Injectable } from '@nestjs/common';
import { Query, QueryBus } from '@nestjs/cqrs';
import { Actor, EventLog, EventType, previousAttributes } from '@app/shared-kernel';

/** A read of the resource a command changed: the query its GET route runs. */
type Read<R> = (result: R) => Query<object>;

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

  /** The query's answer as the route renders it (JSON: dates as RFC 3339 strings). */
  private async read(query: Query<object>): Promise<Record<string, unknown>> {
    return JSON.parse(JSON.stringify(await this.queries.execute(query))) as Record<string, unknown>;
  }
}
