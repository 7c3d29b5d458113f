import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class DiscardProductDraftCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
  ) {
    super();
  }
}
