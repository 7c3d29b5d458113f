import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { DocumentType } from '../../domain/document-template';
import { TemplateView } from './template.view';

export const TEMPLATE_SORTS = ['updated_at', 'updated_at:desc', 'updated_at:asc'] as const;

export interface TemplateFilters {
  sort?: string;
  documentType?: string;
  status?: string;
  anchorKey?: string;
  counts?: string;
}

export type TemplateCounts = Record<'all' | DocumentType, number>;

export class ListTemplatesQuery extends Query<Page<TemplateView> & { counts?: { document_type: TemplateCounts } }> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: TemplateFilters,
  ) {
    super();
  }
}
