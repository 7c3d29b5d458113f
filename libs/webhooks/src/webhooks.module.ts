import { Module } from '@nestjs/common';
import { WebhookUrlGuard } from './application/url-guard';
import { WebhookDeliveries } from './application/webhook-deliveries';
import { WebhookDispatcher } from './application/webhook-dispatcher';
import { WebhookEndpointHandlers } from './application/webhook-endpoint.handlers';
import { HostResolver } from './infrastructure/host-resolver';
import { WebhookSecretVault } from './infrastructure/secret-vault';
import { WebhookSender } from './infrastructure/webhook-sender';

/**
 * Webhook endpoints and the delivery of events to them (api-contract.md §4). Other contexts reach
 * it through WebhookDeliveries (queue an event's deliveries inside the transaction that writes it).
 */
@Module({
  providers: [
    HostResolver,
    WebhookSender,
    WebhookSecretVault,
    WebhookUrlGuard,
    WebhookDeliveries,
    WebhookDispatcher,
    ...WebhookEndpointHandlers,
  ],
  exports: [WebhookDeliveries, WebhookDispatcher],
})
export class WebhooksModule {}
