import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { SharedErrors } from '@app/shared-kernel';
import { PRINTED_DOCUMENT_TYPES, PrintedDocumentType } from '../../domain/document-template';
import { systemDefaultFor, systemEmailFor } from '../../domain/system-templates';
import { ResolveTemplateQuery } from './resolve-template.query';
import { readTemplate, TemplateReads } from './template-reads';
import { TemplateView } from './template.view';

@QueryHandler(ResolveTemplateQuery)
export class ResolveTemplateHandler implements IQueryHandler<ResolveTemplateQuery> {
  constructor(private readonly templates: TemplateReads) {}

  async execute({ actor, documentType }: ResolveTemplateQuery): Promise<TemplateView> {
    const anchorKey = documentType.startsWith('email:') ? documentType.slice('email:'.length) : null;
    if (anchorKey !== null) {
      const fallback = systemEmailFor(anchorKey);
      if (!fallback)
        throw SharedErrors.VALIDATION_ERROR.create(`Unknown mail kind ${anchorKey}.`, {
          param: 'document_type',
        });
      const published = await this.templates.publishedEmailTemplateId(actor, anchorKey);
      return readTemplate(this.templates, actor, published ?? fallback.id);
    }
    if (!(PRINTED_DOCUMENT_TYPES as readonly string[]).includes(documentType)) {
      throw SharedErrors.VALIDATION_ERROR.create(`Unknown document type ${documentType}.`, {
        param: 'document_type',
      });
    }
    // A slot always names a live, non-archived template (releases happen in the writes that
    // would break it); the system default answers when the slot is empty.
    const slot = await this.templates.defaultTemplateId(actor, documentType);
    return readTemplate(this.templates, actor, slot ?? systemDefaultFor(documentType as PrintedDocumentType).id);
  }
}
