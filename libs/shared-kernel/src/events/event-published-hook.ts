import { Injectable } from '@nestjs/common';
import type { SqlWrite } from '../persistence/sql-write';
import type { EventTenant, WrittenEvent } from './event-log';

/**
 * The one place a written event is handed on (webhook deliveries, once wired): called by
 * `EventLog` for every batch of events it writes, inside the change's transaction, before the
 * statement that inserts them runs. Whatever must commit with the events is answered as writes,
 * which go into that same statement (one round trip; a foreign key to `events` holds, since keys
 * are checked at the end of the statement). Those writes may read the events as inserted from
 * the CTE named EVENT_ROWS_CTE (`event_rows`, every column of `events`), and may hand what they
 * RETURN to code that runs once the transaction has committed (`SqlWrite.committed`). The default
 * hands nothing on.
 *
 * The application host binds the real one: `PlatformModule.forRoot({ eventPublishedHook })` with
 * a subclass whose dependencies are the platform's own providers (the webhooks context's
 * WebhookEventHook), so the shared kernel imports no context.
 */
@Injectable()
export class EventPublishedHook {
  written(events: readonly WrittenEvent[], tenant: EventTenant): readonly SqlWrite[] | Promise<readonly SqlWrite[]> {
    void events;
    void tenant;
    return [];
  }
}
