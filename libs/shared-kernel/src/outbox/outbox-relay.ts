import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { PgNotifications } from '../persistence/pg-notifications';
import { EventClass, integrationEventType } from './integration-event';
import { HandlesIntegrationEvent, IntegrationEventHandler } from './integration-event-handler';
import { OUTBOX_CHANNEL } from './outbox';

interface Subscriber {
  eventClass: EventClass;
  handler: IntegrationEventHandler<object>;
}

interface OutboxKey {
  organization_id: string;
  id: string;
}

interface OutboxRow extends OutboxKey {
  event_type: string;
  payload: Record<string, unknown>;
  attempts: number;
}

const SAFETY_POLL_MS = 5_000;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** Due events read per pass; each is then claimed on its own. */
const DUE_BATCH = 50;

/**
 * Delivers committed outbox events to their handlers, at least once, on whichever instance
 * claims them first (FOR UPDATE SKIP LOCKED). Woken by the NOTIFY sent at commit; a slow poll
 * picks up retries and anything a missed notification left behind.
 *
 * The due events of every organization are found by a read without locks, then each is claimed
 * by its key (organization_id, id): on Citus a row lock is only possible in a statement that names
 * one organization (one shard), so no statement locks across organizations.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly subscribers = new Map<string, Subscriber[]>();
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private next?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly notifications: PgNotifications,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: HandlesIntegrationEvent.KEY })) {
      const eventClass = this.discovery.getMetadataByDecorator(HandlesIntegrationEvent, wrapper)!;
      const type = integrationEventType(eventClass);
      if (!type) throw new Error(`${wrapper.name} handles ${eventClass.name}, which is not an @IntegrationEvent`);
      const list = this.subscribers.get(type) ?? [];
      list.push({ eventClass, handler: wrapper.instance as IntegrationEventHandler<object> });
      this.subscribers.set(type, list);
    }
    this.notifications.subscribe(OUTBOX_CHANNEL, { onNotification: () => this.wake(), onResubscribe: () => this.wake() });
    this.timer = setInterval(() => this.wake(), SAFETY_POLL_MS);
    this.timer.unref();
    this.wake();
  }

  /** Lets the current delivery finish while the pool is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.next;
    await this.current;
  }

  /** Resolves once a drain that started after this call has found nothing more due. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (!this.current) return (this.current = this.startDrain());
    this.next ??= this.current.then(() => {
      this.next = undefined;
      return (this.current = this.startDrain());
    });
    return this.next;
  }

  private startDrain(): Promise<void> {
    const run: Promise<void> = this.drain()
      .catch((error: Error) => this.logger.error(`outbox drain failed: ${error.message}`))
      .finally(() => {
        if (this.current === run) this.current = undefined;
      });
    return run;
  }

  private async drain(): Promise<void> {
    while (!this.stopped) {
      let claimed = false;
      for (const event of await this.dueEvents()) {
        if (this.stopped) return;
        // one event per transaction, so a failing handler never holds back the others
        if (await this.deliver(event)) claimed = true;
      }
      // Nothing due, or every due event claimed by another instance, which delivers it.
      if (!claimed) return;
    }
  }

  private dueEvents(): Promise<OutboxKey[]> {
    return this.dataSource.query(
      `SELECT organization_id, id FROM outbox_events
        WHERE dispatched_at IS NULL AND next_attempt_at <= $1
        ORDER BY next_attempt_at, id
        LIMIT ${DUE_BATCH}`,
      [this.clock.now()],
    );
  }

  /** Claims and delivers one event; false when it is no longer due or another instance holds it. */
  private async deliver(key: OutboxKey): Promise<boolean> {
    let failed: { row: OutboxRow; error: Error } | undefined;
    const delivered = await this.txHost
      .withTransaction(async () => {
        const rows: OutboxRow[] = await this.txHost.tx.query(
          `SELECT organization_id, id, event_type, payload, attempts FROM outbox_events
            WHERE organization_id = $1 AND id = $2 AND dispatched_at IS NULL AND next_attempt_at <= $3
            FOR UPDATE SKIP LOCKED`,
          [key.organization_id, key.id, this.clock.now()],
        );
        const row = rows[0];
        if (!row) return false;
        try {
          for (const { eventClass, handler } of this.subscribers.get(row.event_type) ?? []) {
            await handler.handle(Object.assign(Object.create(eventClass.prototype) as object, row.payload));
          }
        } catch (error) {
          failed = { row, error: error as Error };
          throw error;
        }
        await this.txHost.tx.query(
          `UPDATE outbox_events SET dispatched_at = $3, attempts = attempts + 1 WHERE organization_id = $1 AND id = $2`,
          [row.organization_id, row.id, this.clock.now()],
        );
        return true;
      })
      .catch((error: Error) => {
        if (!failed) throw error;
        return false;
      });
    if (failed) {
      await this.scheduleRetry(failed.row, failed.error);
      return true;
    }
    return delivered;
  }

  private async scheduleRetry(row: OutboxRow, error: Error): Promise<void> {
    const attempts = row.attempts + 1;
    const backoffMs = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(attempts, 22));
    this.logger.error(`outbox event ${row.id} (${row.event_type}) failed on attempt ${attempts}: ${error.message}`);
    await this.dataSource.query(
      `UPDATE outbox_events SET attempts = $3, last_error = $4, next_attempt_at = $5 WHERE organization_id = $1 AND id = $2`,
      [row.organization_id, row.id, attempts, error.message.slice(0, 2000), new Date(this.clock.now().getTime() + backoffMs)],
    );
  }
}
