import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { WebhookEndpointStatus } from '../domain/webhook-endpoint';

/** An endpoint as answered: never its secret (create and rotate add it once). */
export interface WebhookEndpointView {
  id: string;
  workspaceId: string;
  url: string;
  description: string | null;
  metadata: Record<string, string>;
  enabledEvents: string[];
  status: WebhookEndpointStatus;
  disabledReason: 'manual' | 'failing' | null;
  disabledAt: Date | null;
  /** While a rotated-out secret still signs beside the current one. */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpointView;
  secret: string;
}

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
}

export interface CreateWebhookEndpointInput {
  url: unknown;
  enabledEvents: unknown;
  description?: unknown;
  metadata?: unknown;
}

export interface UpdateWebhookEndpointInput {
  url?: unknown;
  enabledEvents?: unknown;
  description?: unknown;
  metadata?: unknown;
  status?: unknown;
}

export class CreateWebhookEndpointCommand extends Command<WebhookEndpointWithSecret> {
  constructor(
    readonly actor: Actor,
    readonly input: CreateWebhookEndpointInput,
  ) {
    super();
  }
}

export class UpdateWebhookEndpointCommand extends Command<WebhookEndpointView> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
    readonly input: UpdateWebhookEndpointInput,
  ) {
    super();
  }
}

export class DeleteWebhookEndpointCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
  ) {
    super();
  }
}

export class RotateWebhookSecretCommand extends Command<WebhookEndpointWithSecret> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
  ) {
    super();
  }
}

export class GetWebhookEndpointQuery extends Query<WebhookEndpointView> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
  ) {
    super();
  }
}

export class ListWebhookEndpointsQuery extends Query<Page<WebhookEndpointView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export class ListWebhookDeliveriesQuery extends Query<Page<WebhookDeliveryView>> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: { eventId?: string; status?: 'pending' | 'succeeded' | 'failed' },
  ) {
    super();
  }
}

/**
 * One more delivery of an event of the caller's workspace to one of its endpoints, whatever the
 * endpoint's filters (`POST /v1/events/{id}/redeliver`): EVENT_NOT_FOUND or
 * WEBHOOK_ENDPOINT_NOT_FOUND for an id outside the caller's workspace. Answers the queued delivery.
 */
export class RedeliverEventCommand extends Command<WebhookDeliveryView> {
  constructor(
    readonly actor: Actor,
    readonly eventId: string,
    readonly endpointId: string,
  ) {
    super();
  }
}
