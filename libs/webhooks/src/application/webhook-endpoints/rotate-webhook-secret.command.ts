import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WebhookEndpointWithSecret } from './webhook-endpoint.view';

export class RotateWebhookSecretCommand extends Command<WebhookEndpointWithSecret> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
  ) {
    super();
  }
}
