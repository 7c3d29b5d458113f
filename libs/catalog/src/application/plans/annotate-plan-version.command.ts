import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class AnnotatePlanVersionCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
    readonly notes: { releaseName?: string; releaseNote?: string },
  ) {
    super();
  }
}
