import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class RemovePlanProductCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly productId: string,
  ) {
    super();
  }
}
