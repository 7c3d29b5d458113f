import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class DeletePlanCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}
