import { Actor, isUuid } from '@app/shared-kernel';
import { DocumentType, PrintedDocumentType, templateNotFound } from '../../domain/document-template';
import { systemTemplate } from '../../domain/system-templates';
import { TemplateView } from './template.view';

/** The workspace a read is confined to. */
export interface TemplateScope {
  organizationId: string;
  workspaceId: string;
}

/** The template list's filters as its cursor binds them (null: not filtered on). */
// A type, not an interface: the cursor binding takes it as a Record<string, unknown>.
export type TemplateListFilters = {
  document_type: DocumentType | null;
  status: string | null;
  anchor_key: string | null;
};

/** Live templates per document type (`all`: every one), as `counts=document_type` reports them. */
export type TemplateRowCounts = Record<'all' | DocumentType, number>;

/**
 * The read side of templates (the template queries and the previews), outside any transaction:
 * templates of the workspace with the default slots they hold. A port (also the DI token); the
 * module binds the adapter (infrastructure/typeorm-template.reads.ts). System templates have no
 * row: they come from the domain (system-templates.ts), their slots from `systemSlots`.
 */
export abstract class TemplateReads {
  /** A live (not deleted) template of the workspace; undefined when there is none. `id` is a UUID. */
  abstract find(scope: TemplateScope, id: string): Promise<TemplateView | undefined>;

  /** The default slots of the workspace that name system templates (they have no row to join). */
  abstract systemSlots(scope: TemplateScope): Promise<Map<string, PrintedDocumentType[]>>;

  /**
   * Up to `limit` live templates of the workspace by `updated_at` then id in `order`, after `after`
   * (a position `[updated_at, id]`; undefined: from the start).
   */
  abstract list(
    scope: TemplateScope,
    filters: TemplateListFilters,
    order: 'asc' | 'desc',
    after: unknown[] | undefined,
    limit: number,
  ): Promise<TemplateView[]>;

  /** The workspace's live templates counted per document type, filtered on status and anchor key (null: any). */
  abstract count(scope: TemplateScope, filters: { status: string | null; anchorKey: string | null }): Promise<TemplateRowCounts>;

  /** The id of the workspace's published e-mail template of this mail kind, if it has one. */
  abstract publishedEmailTemplateId(scope: TemplateScope, anchorKey: string): Promise<string | undefined>;

  /** The id of the template holding the workspace's default slot of this document type, if one does. */
  abstract defaultTemplateId(scope: TemplateScope, documentType: string): Promise<string | undefined>;
}

/** A system template or a template of the caller's workspace, as a read model; 404 otherwise. */
export async function readTemplate(templates: TemplateReads, actor: Actor, id: string): Promise<TemplateView> {
  if (!isUuid(id)) throw templateNotFound();
  const system = systemTemplate(id);
  if (system) return { template: system, defaultFor: (await templates.systemSlots(actor)).get(system.id) ?? [] };
  const view = await templates.find(actor, id);
  if (!view) throw templateNotFound();
  return view;
}
