import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TemplateView } from './template.view';

export interface CreateTemplateInput {
  name: string;
  description?: string | null;
  documentTypes?: unknown;
  anchorKey?: string | null;
  document: unknown;
}

export class CreateTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly input: CreateTemplateInput,
  ) {
    super();
  }
}
