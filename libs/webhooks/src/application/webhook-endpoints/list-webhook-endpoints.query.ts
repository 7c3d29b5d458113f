import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { WebhookEndpointView } from './webhook-endpoint.view';

export class ListWebhookEndpointsQuery extends Query<Page<WebhookEndpointView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
