import { createHash } from 'node:crypto';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { canonicalJson } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import {
  checkTemplateDocument,
  DOCUMENT_TYPES,
  DocumentType,
  fieldRefusal,
  parseDocumentTypes,
  TemplateKind,
} from '../domain/document-template';
import { CONTENT_TYPES, DocumentRenderer, RenderInput } from '../infrastructure/rendering/document-renderer';
import { RenderPool } from '../infrastructure/rendering/render-pool';
import { PreviewCache } from './preview-cache';
import { RenderBudget } from './render-budget';
import { PreviewResult, PreviewTemplateQuery, TemplateThumbnailQuery, ThumbnailResult } from './template.commands';
import { readTemplate } from './template.queries';

/** Bumped whenever the renderers change what they draw: cached renders and ETags then change too. */
export const RENDER_REVISION = 'r1';

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
    private readonly dataSource: DataSource,
    private readonly renderer: DocumentRenderer,
    private readonly pool: RenderPool,
    private readonly cache: PreviewCache,
    private readonly budget: RenderBudget,
  ) {}

  async execute({ actor, templateId, input, format }: PreviewTemplateQuery): Promise<PreviewResult> {
    const { template } = await readTemplate(this.dataSource, actor, templateId);
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
    if (input.document !== undefined) this.renderer.checkBounds(document);
    const rateLimit = await this.budget.spend(actor.organizationId);
    const render: RenderInput = { document, kind: template.kind, anchorKey: template.anchorKey, documentType };
    const key = digest({ revision: RENDER_REVISION, tenant: [actor.organizationId, actor.workspaceId], render, format });
    const cached = this.cache.get(key);
    if (cached) return { body: cached, contentType: CONTENT_TYPES[format], cacheHit: true, rateLimit };
    const body = await this.pool.render({ input: render, format });
    this.cache.set(key, body);
    return { body, contentType: CONTENT_TYPES[format], cacheHit: false, rateLimit };
  }
}

/**
 * The first page of a template as an SVG miniature. Its strong ETag is keyed on the template's
 * id and `updated_at` (and the renderer's revision): an unchanged template answers 304 without
 * rendering. A thumbnail that has to be rendered (neither 304 nor cached) spends the
 * organization's render budget, as a preview does.
 */
@QueryHandler(TemplateThumbnailQuery)
export class TemplateThumbnailHandler implements IQueryHandler<TemplateThumbnailQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pool: RenderPool,
    private readonly cache: PreviewCache,
    private readonly budget: RenderBudget,
  ) {}

  async execute({ actor, templateId, ifNoneMatch }: TemplateThumbnailQuery): Promise<ThumbnailResult> {
    const { template } = await readTemplate(this.dataSource, actor, templateId);
    const tag = createHash('sha256')
      .update(`${template.id}|${template.updatedAt.toISOString()}|${RENDER_REVISION}`)
      .digest('hex')
      .slice(0, 32);
    const etag = `"${tag}"`;
    if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, tag)) return { etag, svg: null, rateLimit: null };
    const key = `thumbnail|${actor.organizationId}|${actor.workspaceId}|${tag}`;
    const cached = this.cache.get(key);
    if (cached) return { etag, svg: cached.toString('utf8'), rateLimit: null };
    const rateLimit = await this.budget.spend(actor.organizationId);
    const svg = await this.pool.render({
      input: {
        document: template.document,
        kind: template.kind,
        anchorKey: template.anchorKey,
        documentType: template.documentTypes[0],
      },
      format: 'svg',
    });
    this.cache.set(key, svg);
    return { etag, svg: svg.toString('utf8'), rateLimit };
  }
}

/** If-None-Match: `*`, or a list of entity tags compared weakly (RFC 9110 §13.1.2). */
export function matchesEtag(header: string, tag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === `"${tag}"`);
}
