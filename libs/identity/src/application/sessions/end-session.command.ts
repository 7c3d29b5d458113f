import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class EndSessionCommand extends Command<void> {
  constructor(readonly actor: Actor) {
    super();
  }
}
