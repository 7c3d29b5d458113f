import { ListWebhookDeliveriesHandler } from './list-webhook-deliveries.handler';
import { RedeliverEventHandler } from './redeliver-event.handler';

export const WebhookDeliveryHandlers = [ListWebhookDeliveriesHandler, RedeliverEventHandler];
