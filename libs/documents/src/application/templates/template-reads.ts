import { Actor, isUuid, sameTenant } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { PrintedDocumentType, templateNotFound } from '../../domain/document-template';
import { SYSTEM_TEMPLATES, systemTemplate } from '../../domain/system-templates';
import { TEMPLATE_COLUMNS, TemplateRow, toState } from '../../infrastructure/template-rows';
import { TemplateView } from './template.view';

/** The read side of templates (the template queries and the previews): rows with the default slots they hold. */

export type ViewRow = TemplateRow & { default_for: PrintedDocumentType[] };

export const VIEW_SELECT = `${TEMPLATE_COLUMNS.split(',')
  .map((column) => `t.${column.trim()}`)
  .join(', ')},
  COALESCE((SELECT array_agg(d.document_type ORDER BY d.document_type) FROM document_template_defaults d
             WHERE d.organization_id = t.organization_id AND d.workspace_id = t.workspace_id AND d.template_id = t.id),
           '{}') AS default_for`;

export function toView(row: ViewRow): TemplateView {
  return { template: toState(row), defaultFor: row.default_for };
}

/** The default slots of the workspace that name system templates (they have no row to join). */
export async function systemSlots(dataSource: DataSource, actor: Actor): Promise<Map<string, PrintedDocumentType[]>> {
  const rows: Array<{ template_id: string; document_type: PrintedDocumentType }> = await dataSource.query(
    `SELECT template_id, document_type FROM document_template_defaults
      WHERE organization_id = $1 AND workspace_id = $2 AND template_id = ANY ($3::uuid[]) ORDER BY document_type`,
    [actor.organizationId, actor.workspaceId, SYSTEM_TEMPLATES.map((template) => template.id)],
  );
  const slots = new Map<string, PrintedDocumentType[]>();
  for (const row of rows) slots.set(row.template_id, [...(slots.get(row.template_id) ?? []), row.document_type]);
  return slots;
}

/** A system template or a template of the caller's workspace, as a read model; 404 otherwise. */
export async function readTemplate(dataSource: DataSource, actor: Actor, id: string): Promise<TemplateView> {
  if (!isUuid(id)) throw templateNotFound();
  const system = systemTemplate(id);
  if (system) return { template: system, defaultFor: (await systemSlots(dataSource, actor)).get(system.id) ?? [] };
  const rows: ViewRow[] = await dataSource.query(
    `SELECT ${VIEW_SELECT} FROM document_templates t WHERE t.id = $3 AND t.deleted_at IS NULL AND ${sameTenant('t', '$1', '$2')}`,
    [actor.organizationId, actor.workspaceId, id],
  );
  if (!rows[0]) throw templateNotFound();
  return toView(rows[0]);
}
