import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WebhookDeliveryView } from './webhook-delivery.view';

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
