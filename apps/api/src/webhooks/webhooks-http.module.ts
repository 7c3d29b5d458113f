import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { EventRedeliveryController } from './event-redelivery.controller';
import { WebhookEndpointsController } from './webhook-endpoints.controller';

@Module({
  imports: [WebhooksModule],
  controllers: [WebhookEndpointsController, EventRedeliveryController],
})
export class WebhooksHttpModule {}
