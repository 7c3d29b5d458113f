import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WebhookEndpointView } from './webhook-endpoint.view';

export class GetWebhookEndpointQuery extends Query<WebhookEndpointView> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
  ) {
    super();
  }
}
