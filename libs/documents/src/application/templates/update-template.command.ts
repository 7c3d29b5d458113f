import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TemplateView } from './template.view';

export interface UpdateTemplateInput {
  expectedVersion: number;
  name?: string;
  description?: string | null;
  documentTypes?: unknown;
  status?: unknown;
  document?: unknown;
}

export class UpdateTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly input: UpdateTemplateInput,
  ) {
    super();
  }
}
