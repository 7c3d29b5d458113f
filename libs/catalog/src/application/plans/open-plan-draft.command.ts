import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class OpenPlanDraftCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly baseVersionId: string | undefined,
  ) {
    super();
  }
}
