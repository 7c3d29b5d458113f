import { createHash } from 'node:crypto';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { canonicalJson, DomainError, RateLimitCounter } from '@app/shared-kernel';
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
import { PreviewCache } from '../infrastructure/preview-cache';
import { DocumentsOptions } from './documents-options';
import { PreviewResult, PreviewTemplateQuery, TemplateThumbnailQuery, ThumbnailResult } from './template.commands';
import { readTemplate } from './template.queries';

/** Bumped whenever the renderers change what they draw: cached renders and ETags then change too. */
export const RENDER_REVISION = 'r1';

const digest = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('base64url');

/**
 * Renders a template, or the unsaved `template_json` of the request, with sample data. Rate
 * limited per organization across instances (counted once the template is found and the request
 * is valid, before the cache: a cached preview is a preview too); identical input is served from
 * a short-lived cache with identical bytes.
 */
@QueryHandler(PreviewTemplateQuery)
export class PreviewTemplateHandler implements IQueryHandler<PreviewTemplateQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly renderer: DocumentRenderer,
    private readonly cache: PreviewCache,
    private readonly counter: RateLimitCounter,
    private readonly options: DocumentsOptions,
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
    const rateLimit = await this.consume(actor.organizationId);
    const render: RenderInput = { document, kind: template.kind, anchorKey: template.anchorKey, documentType };
    const key = digest({ revision: RENDER_REVISION, tenant: [actor.organizationId, actor.workspaceId], render, format });
    const cached = this.cache.get(key);
    if (cached) return { body: cached, contentType: CONTENT_TYPES[format], cacheHit: true, rateLimit };
    const body = await this.renderer.render(render, format);
    this.cache.set(key, body);
    return { body, contentType: CONTENT_TYPES[format], cacheHit: false, rateLimit };
  }

  private async consume(organizationId: string): Promise<PreviewResult['rateLimit']> {
    const limit = this.options.previewRateLimitPerMinute;
    if (limit <= 0) return null;
    const { hits, resetSeconds } = await this.counter.hit(organizationId, 'pdf_preview');
    if (hits > limit) {
      throw new DomainError(
        'rate_limited',
        'RATE_LIMITED',
        `PDF preview rate limit of ${limit} per minute per organization exceeded.`,
        {
          details: { retry_after_seconds: resetSeconds, limit, scope: 'organization' },
        },
      );
    }
    return { limit, remaining: limit - hits, resetSeconds };
  }
}

/**
 * The first page of a template as an SVG miniature. Its strong ETag is keyed on the template's
 * id and `updated_at` (and the renderer's revision): an unchanged template answers 304 without
 * rendering.
 */
@QueryHandler(TemplateThumbnailQuery)
export class TemplateThumbnailHandler implements IQueryHandler<TemplateThumbnailQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly renderer: DocumentRenderer,
    private readonly cache: PreviewCache,
  ) {}

  async execute({ actor, templateId, ifNoneMatch }: TemplateThumbnailQuery): Promise<ThumbnailResult> {
    const { template } = await readTemplate(this.dataSource, actor, templateId);
    const tag = createHash('sha256')
      .update(`${template.id}|${template.updatedAt.toISOString()}|${RENDER_REVISION}`)
      .digest('hex')
      .slice(0, 32);
    const etag = `"${tag}"`;
    if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, tag)) return { etag, svg: null };
    const key = `thumbnail|${actor.organizationId}|${actor.workspaceId}|${tag}`;
    const cached = this.cache.get(key);
    if (cached) return { etag, svg: cached.toString('utf8') };
    const svg = this.renderer.svg({
      document: template.document,
      kind: template.kind,
      anchorKey: template.anchorKey,
      documentType: template.documentTypes[0],
    });
    this.cache.set(key, Buffer.from(svg));
    return { etag, svg };
  }
}

/** If-None-Match: `*`, or a list of entity tags compared weakly (RFC 9110 §13.1.2). */
export function matchesEtag(header: string, tag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === `"${tag}"`);
}
