import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class RemoveCostCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
  ) {
    super();
  }
}
