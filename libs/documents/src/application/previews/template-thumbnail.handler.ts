import { createHash } from 'node:crypto';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TemplateRenderer } from '../render-ports';
import { readTemplate, TemplateReads } from '../templates/template-reads';
import { PreviewCache } from './preview-cache';
import { RenderBudget } from './render-budget';
import { matchesEtag, RENDER_REVISION } from './render-revision';
import { TemplateThumbnailQuery, ThumbnailResult } from './template-thumbnail.query';

/**
 * The first page of a template as an SVG miniature. Its strong ETag is keyed on the template's
 * id and `updated_at` (and the renderer's revision): an unchanged template answers 304 without
 * rendering. A thumbnail that has to be rendered (neither 304 nor cached) spends the
 * organization's render budget, as a preview does.
 */
@QueryHandler(TemplateThumbnailQuery)
export class TemplateThumbnailHandler implements IQueryHandler<TemplateThumbnailQuery> {
  constructor(
    private readonly templates: TemplateReads,
    private readonly renderer: TemplateRenderer,
    private readonly cache: PreviewCache,
    private readonly budget: RenderBudget,
  ) {}

  async execute({ actor, templateId, ifNoneMatch }: TemplateThumbnailQuery): Promise<ThumbnailResult> {
    const { template } = await readTemplate(this.templates, actor, templateId);
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
    const svg = await this.renderer.render({
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
