import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TemplateView } from './template.view';

export class CopyTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly name: string | undefined,
  ) {
    super();
  }
}
