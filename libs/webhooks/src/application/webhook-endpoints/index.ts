import { CreateWebhookEndpointHandler } from './create-webhook-endpoint.handler';
import { UpdateWebhookEndpointHandler } from './update-webhook-endpoint.handler';
import { DeleteWebhookEndpointHandler } from './delete-webhook-endpoint.handler';
import { RotateWebhookSecretHandler } from './rotate-webhook-secret.handler';
import { GetWebhookEndpointHandler } from './get-webhook-endpoint.handler';
import { ListWebhookEndpointsHandler } from './list-webhook-endpoints.handler';

export const WebhookEndpointHandlers = [
  CreateWebhookEndpointHandler,
  UpdateWebhookEndpointHandler,
  DeleteWebhookEndpointHandler,
  RotateWebhookSecretHandler,
  GetWebhookEndpointHandler,
  ListWebhookEndpointsHandler,
];
