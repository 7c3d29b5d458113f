import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WebhookEndpointWithSecret } from './webhook-endpoint.view';

export interface CreateWebhookEndpointInput {
  url: unknown;
  enabledEvents: unknown;
  description?: unknown;
  metadata?: unknown;
}

export class CreateWebhookEndpointCommand extends Command<WebhookEndpointWithSecret> {
  constructor(
    readonly actor: Actor,
    readonly input: CreateWebhookEndpointInput,
  ) {
    super();
  }
}
