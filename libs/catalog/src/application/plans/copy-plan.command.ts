import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class CopyPlanCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly name: string | undefined,
  ) {
    super();
  }
}
