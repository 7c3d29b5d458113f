import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { WebhookEndpointsController } from './webhook-endpoints.controller';

@Module({
  imports: [WebhooksModule],
  controllers: [WebhookEndpointsController],
})
export class WebhooksHttpModule {}
