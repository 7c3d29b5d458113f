import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { GetWebhookEndpointQuery } from './get-webhook-endpoint.query';
import { WebhookEndpointView } from './webhook-endpoint.view';
import { findEndpoint, toView } from './webhook-endpoint-rows';

@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, endpointId }: GetWebhookEndpointQuery): Promise<WebhookEndpointView> {
    return toView(await findEndpoint(this.dataSource, actor, endpointId), this.clock.now());
  }
}
