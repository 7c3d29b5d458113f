import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TemplateView } from './template.view';

export class ClearDefaultTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly documentType: string,
  ) {
    super();
  }
}
