import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class RestoreCostCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
  ) {
    super();
  }
}
