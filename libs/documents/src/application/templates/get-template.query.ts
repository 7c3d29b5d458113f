import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TemplateView } from './template.view';

export class GetTemplateQuery extends Query<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
  ) {
    super();
  }
}
