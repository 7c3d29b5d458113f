import { Module } from '@nestjs/common';
import { WebhookDeliveryHandlers } from './application/webhook-deliveries';
import { WebhookUrlGuard } from './application/url-guard';
import { WebhookDeliveries } from './application/webhook-deliveries/webhook-deliveries';
import { WebhookDispatcher } from './application/webhook-deliveries/webhook-dispatcher';
import { WebhookEndpointHandlers } from './application/webhook-endpoints';
import { HostResolver, WebhookSender } from './application/delivery-ports';
import { WebhookSecretVault } from './application/secret-vault';
import { SystemHostResolver } from './infrastructure/host-resolver';
import { NodeHttpWebhookSender } from './infrastructure/webhook-sender';

/**
 * Webhook endpoints and the delivery of events to them (api-contract.md §4). Other contexts reach
 * it through WebhookDeliveries (queue an event's deliveries inside the transaction that writes it).
 */
@Module({
  providers: [
    { provide: HostResolver, useClass: SystemHostResolver },
    { provide: WebhookSender, useClass: NodeHttpWebhookSender },
    WebhookSecretVault,
    WebhookUrlGuard,
    WebhookDeliveries,
    WebhookDispatcher,
    ...WebhookEndpointHandlers,
    ...WebhookDeliveryHandlers,
  ],
  exports: [WebhookDeliveries, WebhookDispatcher],
})
export class WebhooksModule {}
