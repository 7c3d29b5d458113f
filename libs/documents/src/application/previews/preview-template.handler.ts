import { createHash } from 'node:crypto';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { canonicalJson } from '@app/shared-kernel';
import {
  checkTemplateDocument,
  DOCUMENT_TYPES,
  DocumentType,
  fieldRefusal,
  parseDocumentTypes,
  TemplateKind,
} from '../../domain/document-template';
import { CONTENT_TYPES, FooterBounds, RenderInput, TemplateRenderer } from '../render-ports';
import { readTemplate, TemplateReads } from '../templates/template-reads';
import { PreviewCache } from './preview-cache';
import { PreviewResult, PreviewTemplateQuery } from './preview-template.query';
import { RenderBudget } from './render-budget';
import { RENDER_REVISION } from './render-revision';

const digest = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('base64url');

/**
 * Renders a template, or the unsaved `template_json` of the request, with sample data, on a render
 * thread. Spends the organization's render budget (once the template is found and the request is
 * valid, before the cache: a cached preview is a preview too); identical input is served from a
 * short-lived cache with identical bytes.
 */
@QueryHandler(PreviewTemplateQuery)
export class PreviewTemplateHandler implements IQueryHandler<PreviewTemplateQuery> {
  constructor(
    private readonly templates: TemplateReads,
    private readonly footers: FooterBounds,
    private readonly renderer: TemplateRenderer,
    private readonly cache: PreviewCache,
    private readonly budget: RenderBudget,
  ) {}

  async execute({ actor, templateId, input, format }: PreviewTemplateQuery): Promise<PreviewResult> {
    const { template } = await readTemplate(this.templates, actor, templateId);
    const documentTypes = input.documentTypes === undefined ? template.documentTypes : parseDocumentTypes(input.documentTypes);
    const kindOfTypes: TemplateKind = documentTypes.includes('email') ? 'email' : 'printed';
    if (kindOfTypes !== template.kind) {
      throw fieldRefusal(
        'document_types',
        'KIND_IMMUTABLE',
        `This is a ${template.kind} template; document_types cannot make it another kind.`,
      );
    }
    const documentType = (input.documentType ??
      (documentTypes.includes('invoice') ? 'invoice' : documentTypes[0])) as DocumentType;
    if (!(DOCUMENT_TYPES as readonly string[]).includes(documentType)) {
      throw fieldRefusal('document_type', 'INVALID_VALUE', `document_type must be one of ${DOCUMENT_TYPES.join(', ')}.`);
    }
    if (!documentTypes.includes(documentType)) {
      throw fieldRefusal(
        'document_type',
        'NOT_IN_DOCUMENT_TYPES',
        `document_type must be one of the template's document_types: ${documentTypes.join(', ')}.`,
      );
    }
    const document =
      input.document === undefined ? template.document : checkTemplateDocument(template.kind, template.anchorKey, input.document);
    if (input.document !== undefined) this.footers.checkBounds(document);
    const rateLimit = await this.budget.spend(actor.organizationId);
    const render: RenderInput = { document, kind: template.kind, anchorKey: template.anchorKey, documentType };
    const key = digest({ revision: RENDER_REVISION, tenant: [actor.organizationId, actor.workspaceId], render, format });
    const cached = this.cache.get(key);
    if (cached) return { body: cached, contentType: CONTENT_TYPES[format], cacheHit: true, rateLimit };
    const body = await this.renderer.render({ input: render, format });
    this.cache.set(key, body);
    return { body, contentType: CONTENT_TYPES[format], cacheHit: false, rateLimit };
  }
}
