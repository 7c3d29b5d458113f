import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TemplateView } from './template.view';

/**
 * The template a document of this type is rendered with in the caller's workspace: the printed
 * type's default slot, else the system default; for an e-mail kind (`email:<anchor_key>`), the
 * published e-mail template, else the system one. For the contexts that render documents.
 */
export class ResolveTemplateQuery extends Query<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly documentType: string,
  ) {
    super();
  }
}
