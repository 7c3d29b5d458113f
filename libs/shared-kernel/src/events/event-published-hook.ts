import { Injectable } from '@nestjs/common';
import type { SqlWrite } from '../persistence/sql-write';
import type { EventTenant, WrittenEvent } from './event-log';

/**
 * The one place a written event is handed on (webhook deliveries, once wired): called by
 * `EventLog` for every batch of events it writes, inside the change's transaction, before the
 * statement that inserts them runs. Whatever must commit with the events is answered as writes,
 * which go into that same statement (one round trip; a foreign key to `events` holds, since keys
 * are checked at the end of the statement). The default hands nothing on.
 *
 * To wire deliveries, provide another implementation for this token in PlatformModule (or
 * override it in the app module), e.g. one that answers `WebhookDeliveries.enqueueForEvent`'s
 * writes for each event.
 */
@Injectable()
export class EventPublishedHook {
  written(events: readonly WrittenEvent[], tenant: EventTenant): readonly SqlWrite[] | Promise<readonly SqlWrite[]> {
    void events;
    void tenant;
    return [];
  }
}
