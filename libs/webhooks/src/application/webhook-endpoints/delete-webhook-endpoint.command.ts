import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class DeleteWebhookEndpointCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly endpointId: string,
  ) {
    super();
  }
}
