import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, CursorCodec, keysetPage, SharedErrors } from '@app/shared-kernel';
import { DOCUMENT_TYPES, DocumentType, TemplateState, TEMPLATE_STATUSES } from '../../domain/document-template';
import { anchorKeys } from '../../domain/email-kinds';
import { SYSTEM_TEMPLATES } from '../../domain/system-templates';
import { ListTemplatesQuery, TEMPLATE_SORTS, TemplateCounts } from './list-templates.query';
import { TemplateListFilters, TemplateReads } from './template-reads';

interface ParsedFilters {
  order: 'asc' | 'desc';
  documentType: DocumentType | null;
  status: string | null;
  anchorKey: string | null;
  counts: boolean;
}

function parseFilters(filters: ListTemplatesQuery['filters']): ParsedFilters {
  const sort = filters.sort ?? 'updated_at:desc';
  if (!(TEMPLATE_SORTS as readonly string[]).includes(sort)) {
    throw SharedErrors.INVALID_SORT.create(`sort must be one of ${TEMPLATE_SORTS.join(', ')}.`, { param: 'sort' });
  }
  const invalid = (param: string, allowed: readonly string[]) =>
    SharedErrors.VALIDATION_ERROR.create(`${param} must be one of ${allowed.join(', ')}.`, {
      param,
      errors: [{ param, code: 'INVALID_VALUE', message: `${param} must be one of ${allowed.join(', ')}.` }],
    });
  if (filters.documentType !== undefined && !(DOCUMENT_TYPES as readonly string[]).includes(filters.documentType)) {
    throw invalid('document_type', DOCUMENT_TYPES);
  }
  if (filters.status !== undefined && !(TEMPLATE_STATUSES as readonly string[]).includes(filters.status)) {
    throw invalid('status', TEMPLATE_STATUSES);
  }
  if (filters.anchorKey !== undefined && !anchorKeys().includes(filters.anchorKey)) throw invalid('anchor_key', anchorKeys());
  if (filters.counts !== undefined && filters.counts !== 'document_type') throw invalid('counts', ['document_type']);
  // anchor_key implies email: a printed document type beside it can match nothing and is refused as contradictory.
  if (filters.anchorKey !== undefined && filters.documentType !== undefined && filters.documentType !== 'email') {
    throw SharedErrors.VALIDATION_ERROR.create('anchor_key selects e-mail templates; document_type must be email or omitted.', {
      param: 'document_type',
      errors: [{ param: 'document_type', code: 'INVALID_VALUE', message: 'anchor_key implies document_type=email.' }],
    });
  }
  return {
    order: sort.endsWith(':asc') ? 'asc' : 'desc',
    documentType: filters.anchorKey !== undefined ? 'email' : ((filters.documentType as DocumentType | undefined) ?? null),
    status: filters.status ?? null,
    anchorKey: filters.anchorKey ?? null,
    counts: filters.counts === 'document_type',
  };
}

function matches(template: TemplateState, filters: Pick<ParsedFilters, 'documentType' | 'status' | 'anchorKey'>): boolean {
  return (
    (filters.documentType === null || template.documentTypes.includes(filters.documentType)) &&
    (filters.status === null || template.status === filters.status) &&
    (filters.anchorKey === null || template.anchorKey === filters.anchorKey)
  );
}

/**
 * Keyset pages over the workspace's templates by `updated_at` (then id); the first page is
 * preceded by the system defaults that match the filters (they are outside the page size and the
 * cursor). `counts=document_type` counts what the other filters select, per document type, system
 * defaults included: the tabs of a template gallery.
 */
@QueryHandler(ListTemplatesQuery)
export class ListTemplatesHandler implements IQueryHandler<ListTemplatesQuery> {
  constructor(
    private readonly templates: TemplateReads,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListTemplatesQuery) {
    const parsed = parseFilters(filters);
    const bound: TemplateListFilters = {
      document_type: parsed.documentType,
      status: parsed.status,
      anchor_key: parsed.anchorKey,
    };
    const page = await keysetPage(
      this.cursors,
      { list: 'document_templates', filters: bound, order: `updated_at:${parsed.order}` },
      { limit, cursor },
      (after, rows) => this.templates.list(actor, bound, parsed.order, after, rows),
      ({ template }) => [template.updatedAt.toISOString(), template.id],
    );
    let data = page.data;
    if (cursor === undefined) {
      const slots = await this.templates.systemSlots(actor);
      const systems = SYSTEM_TEMPLATES.filter((template) => matches(template, parsed)).map((template) => ({
        template,
        defaultFor: slots.get(template.id) ?? [],
      }));
      data = [...systems, ...data];
    }
    if (!parsed.counts) return { data, pagination: page.pagination };
    return { data, pagination: page.pagination, counts: { document_type: await this.counts(actor, parsed) } };
  }

  private async counts(actor: Actor, filters: ParsedFilters): Promise<TemplateCounts> {
    const scope = { documentType: null, status: filters.status, anchorKey: filters.anchorKey };
    const row = await this.templates.count(actor, { status: scope.status, anchorKey: scope.anchorKey });
    const systems = SYSTEM_TEMPLATES.filter((template) => matches(template, scope));
    const counts = { ...row };
    counts.all += systems.length;
    for (const type of DOCUMENT_TYPES) counts[type] += systems.filter((template) => template.documentTypes.includes(type)).length;
    return counts;
  }
}
