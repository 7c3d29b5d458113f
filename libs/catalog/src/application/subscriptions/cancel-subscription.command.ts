import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class CancelSubscriptionCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly subscriptionId: string,
  ) {
    super();
  }
}
