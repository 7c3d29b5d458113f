import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { WebhookDeliveryView } from './webhook-delivery.view';

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
