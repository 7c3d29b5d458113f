export { WebhooksModule } from './webhooks.module';
export * from './application/webhook-endpoints/create-webhook-endpoint.command';
export * from './application/webhook-endpoints/update-webhook-endpoint.command';
export * from './application/webhook-endpoints/delete-webhook-endpoint.command';
export * from './application/webhook-endpoints/rotate-webhook-secret.command';
export * from './application/webhook-endpoints/get-webhook-endpoint.query';
export * from './application/webhook-endpoints/list-webhook-endpoints.query';
export * from './application/webhook-endpoints/webhook-endpoint.view';
export * from './application/webhook-deliveries/list-webhook-deliveries.query';
export * from './application/webhook-deliveries/redeliver-event.command';
export * from './application/webhook-deliveries/webhook-delivery.view';
export { webhookEndpointResponse } from './application/webhook-endpoints/webhook-endpoint-response';
export type { WebhookEndpointResponse } from './application/webhook-endpoints/webhook-endpoint-response';
export { WebhookEventHook } from './application/webhook-deliveries/webhook-event-hook';
export { WebhookDeliveries, DELIVER_JOB, DELIVER_BATCH_JOB } from './application/webhook-deliveries/webhook-deliveries';
export type {
  WebhookEvent,
  WebhookEventTenant,
  DeliverJob,
  DeliverBatchJob,
} from './application/webhook-deliveries/webhook-deliveries';
export { WebhookDispatcher, MAX_IN_FLIGHT_PER_ENDPOINT, SWEEP_JOB } from './application/webhook-deliveries/webhook-dispatcher';
export { RETRY_DELAYS_MS, MAX_ATTEMPTS, DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS } from './domain/retry-schedule';
export { SECRET_OVERLAP_MS } from './domain/webhook-endpoint';
export { webhooksMigrations } from './infrastructure/migrations';
export { WebhookErrors } from './domain/webhook-errors';
