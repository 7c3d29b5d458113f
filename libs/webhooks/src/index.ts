export { WebhooksModule } from './webhooks.module';
export * from './application/webhook-endpoint.commands';
export { WebhookDeliveries, DELIVER_JOB } from './application/webhook-deliveries';
export type { WebhookEvent, WebhookEventTenant, DeliverJob } from './application/webhook-deliveries';
export {
  WebhookDispatcher,
  WebhookEndpointDisabled,
  MAX_IN_FLIGHT_PER_ENDPOINT,
  SWEEP_JOB,
} from './application/webhook-dispatcher';
export { RETRY_DELAYS_MS, MAX_ATTEMPTS, DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS } from './domain/retry-schedule';
export { SECRET_OVERLAP_MS } from './domain/webhook-endpoint';
