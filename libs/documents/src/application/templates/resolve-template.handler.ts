import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { SharedErrors } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { PRINTED_DOCUMENT_TYPES, PrintedDocumentType } from '../../domain/document-template';
import { systemDefaultFor, systemEmailFor } from '../../domain/system-templates';
import { ResolveTemplateQuery } from './resolve-template.query';
import { readTemplate } from './template-reads';
import { TemplateView } from './template.view';

@QueryHandler(ResolveTemplateQuery)
export class ResolveTemplateHandler implements IQueryHandler<ResolveTemplateQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, documentType }: ResolveTemplateQuery): Promise<TemplateView> {
    const anchorKey = documentType.startsWith('email:') ? documentType.slice('email:'.length) : null;
    if (anchorKey !== null) {
      const fallback = systemEmailFor(anchorKey);
      if (!fallback)
        throw SharedErrors.VALIDATION_ERROR.create(`Unknown mail kind ${anchorKey}.`, {
          param: 'document_type',
        });
      const [published]: Array<{ id: string }> = await this.dataSource.query(
        `SELECT id FROM document_templates
          WHERE organization_id = $1 AND workspace_id = $2 AND anchor_key = $3 AND kind = 'email' AND status = 'published'
            AND deleted_at IS NULL`,
        [actor.organizationId, actor.workspaceId, anchorKey],
      );
      return readTemplate(this.dataSource, actor, published?.id ?? fallback.id);
    }
    if (!(PRINTED_DOCUMENT_TYPES as readonly string[]).includes(documentType)) {
      throw SharedErrors.VALIDATION_ERROR.create(`Unknown document type ${documentType}.`, {
        param: 'document_type',
      });
    }
    // A slot always names a live, non-archived template (releases happen in the writes that
    // would break it); the system default answers when the slot is empty.
    const [slot]: Array<{ template_id: string }> = await this.dataSource.query(
      'SELECT template_id FROM document_template_defaults WHERE organization_id = $1 AND workspace_id = $2 AND document_type = $3',
      [actor.organizationId, actor.workspaceId, documentType],
    );
    return readTemplate(this.dataSource, actor, slot?.template_id ?? systemDefaultFor(documentType as PrintedDocumentType).id);
  }
}
