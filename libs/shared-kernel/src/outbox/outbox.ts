import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { Clock } from '../clock';
import { newId } from '../ids';
import { REQUEST_ID_KEY } from '../request-context';
import { integrationEventType } from './integration-event';

export const OUTBOX_CHANNEL = 'outbox_events';

/**
 * Writes events to the outbox inside the caller's transaction: they are relayed only if that
 * transaction commits, and are lost never. The NOTIFY in the same statement wakes the relay
 * of every instance at commit time.
 */
@Injectable()
export class Outbox {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly cls: ClsService,
  ) {}

  async add(event: object, organizationId: string): Promise<void> {
    const type = integrationEventType(event.constructor);
    if (!type) throw new Error(`${event.constructor.name} is not an @IntegrationEvent`);
    if (!this.txHost.isTransactionActive()) throw new Error('Outbox.add must run inside a transaction');
    const now = this.clock.now();
    await this.txHost.tx.query(
      `WITH inserted AS (
         INSERT INTO outbox_events (id, organization_id, event_type, payload, request_id, occurred_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
       )
       SELECT pg_notify('${OUTBOX_CHANNEL}', '')`,
      [
        newId(),
        organizationId,
        type,
        JSON.stringify(event),
        (this.cls.isActive() ? this.cls.get<string | undefined>(REQUEST_ID_KEY) : undefined) ?? null,
        now,
      ],
    );
  }

  /** Several events of one organization in one statement (a batch of moves), as add does for one. */
  async addMany(events: readonly object[], organizationId: string): Promise<void> {
    if (events.length === 0) return;
    const types = events.map((event) => integrationEventType(event.constructor));
    if (types.some((type) => !type)) throw new Error('Every event given to Outbox.addMany must be an @IntegrationEvent');
    if (!this.txHost.isTransactionActive()) throw new Error('Outbox.addMany must run inside a transaction');
    const now = this.clock.now();
    await this.txHost.tx.query(
      `WITH inserted AS (
         INSERT INTO outbox_events (id, organization_id, event_type, payload, request_id, occurred_at, next_attempt_at)
         SELECT id, $1, event_type, payload, $2, $3, $3 FROM unnest($4::uuid[], $5::text[], $6::jsonb[]) AS e (id, event_type, payload)
       )
       SELECT pg_notify('${OUTBOX_CHANNEL}', '')`,
      [
        organizationId,
        (this.cls.isActive() ? this.cls.get<string | undefined>(REQUEST_ID_KEY) : undefined) ?? null,
        now,
        events.map(() => newId()),
        types,
        events.map((event) => JSON.stringify(event)),
      ],
    );
  }
}
