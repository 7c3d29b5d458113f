import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WebhookEndpointView } from './webhook-endpoint.view';

export interface UpdateWebhookEndpointInput {
  url?: unknown;
  enabledEvents?: unknown;
  description?: unknown;
  metadata?: unknown;
  status?: unknown;
}

export class UpdateWebhookEndpointCommand extends Command<WebhookEndpointView> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
    readonly input: UpdateWebhookEndpointInput,
  ) {
    super();
  }
}
