import { DiscoveryService } from '@nestjs/core';
import { EventClass } from './integration-event';

/**
 * A durable subscriber: the outbox relay calls `handle` after the event's transaction
 * committed, inside a transaction of its own that also marks the event delivered. A throw
 * rolls both back and the event is retried later, so handlers must be idempotent.
 */
export interface IntegrationEventHandler<E extends object> {
  handle(event: E): Promise<void>;
}

/** `@HandlesIntegrationEvent(CustomerCreated)` on an injectable IntegrationEventHandler. */
export const HandlesIntegrationEvent = DiscoveryService.createDecorator<EventClass>();
