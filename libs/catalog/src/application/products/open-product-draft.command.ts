import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class OpenProductDraftCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
    readonly baseVersionId: string | undefined,
  ) {
    super();
  }
}
