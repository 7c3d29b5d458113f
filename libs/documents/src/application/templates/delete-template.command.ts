import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class DeleteTemplateCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
  ) {
    super();
  }
}
