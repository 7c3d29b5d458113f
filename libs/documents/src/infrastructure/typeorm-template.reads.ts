import { Injectable } from '@nestjs/common';
import { sameTenant } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { TemplateListFilters, TemplateReads, TemplateRowCounts, TemplateScope } from '../application/templates/template-reads';
import { TemplateView } from '../application/templates/template.view';
import { PrintedDocumentType } from '../domain/document-template';
import { SYSTEM_TEMPLATES } from '../domain/system-templates';
import { TEMPLATE_COLUMNS, TemplateRow, toState } from './template-rows';

/** A template row with the default slots it holds. */
type ViewRow = TemplateRow & { default_for: PrintedDocumentType[] };

const VIEW_SELECT = `${TEMPLATE_COLUMNS.split(',')
  .map((column) => `t.${column.trim()}`)
  .join(', ')},
  COALESCE((SELECT array_agg(d.document_type ORDER BY d.document_type) FROM document_template_defaults d
             WHERE d.organization_id = t.organization_id AND d.workspace_id = t.workspace_id AND d.template_id = t.id),
           '{}') AS default_for`;

function toView(row: ViewRow): TemplateView {
  return { template: toState(row), defaultFor: row.default_for };
}

@Injectable()
export class TypeOrmTemplateReads extends TemplateReads {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async find(scope: TemplateScope, id: string): Promise<TemplateView | undefined> {
    const rows: ViewRow[] = await this.dataSource.query(
      `SELECT ${VIEW_SELECT} FROM document_templates t WHERE t.id = $3 AND t.deleted_at IS NULL AND ${sameTenant('t', '$1', '$2')}`,
      [scope.organizationId, scope.workspaceId, id],
    );
    return rows[0] && toView(rows[0]);
  }

  async systemSlots(scope: TemplateScope): Promise<Map<string, PrintedDocumentType[]>> {
    const rows: Array<{ template_id: string; document_type: PrintedDocumentType }> = await this.dataSource.query(
      `SELECT template_id, document_type FROM document_template_defaults
        WHERE organization_id = $1 AND workspace_id = $2 AND template_id = ANY ($3::uuid[]) ORDER BY document_type`,
      [scope.organizationId, scope.workspaceId, SYSTEM_TEMPLATES.map((template) => template.id)],
    );
    const slots = new Map<string, PrintedDocumentType[]>();
    for (const row of rows) slots.set(row.template_id, [...(slots.get(row.template_id) ?? []), row.document_type]);
    return slots;
  }

  async list(
    scope: TemplateScope,
    filters: TemplateListFilters,
    order: 'asc' | 'desc',
    after: unknown[] | undefined,
    limit: number,
  ): Promise<TemplateView[]> {
    const comparison = order === 'desc' ? '<' : '>';
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    const rows: ViewRow[] = await this.dataSource.query(
      `SELECT ${VIEW_SELECT} FROM document_templates t
        WHERE t.organization_id = $1 AND t.workspace_id = $2 AND t.deleted_at IS NULL
          AND ($3::text IS NULL OR $3 = ANY (t.document_types)) AND ($4::text IS NULL OR t.status = $4)
          AND ($5::text IS NULL OR t.anchor_key = $5)
          AND ($6::timestamptz IS NULL OR (t.updated_at, t.id) ${comparison} ($6, $7::uuid))
        ORDER BY t.updated_at ${direction}, t.id ${direction} LIMIT $8`,
      [
        scope.organizationId,
        scope.workspaceId,
        filters.document_type,
        filters.status,
        filters.anchor_key,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit,
      ],
    );
    return rows.map(toView);
  }

  async count(scope: TemplateScope, filters: { status: string | null; anchorKey: string | null }): Promise<TemplateRowCounts> {
    const [row]: TemplateRowCounts[] = await this.dataSource.query(
      `SELECT count(*)::int AS all,
              count(*) FILTER (WHERE 'invoice' = ANY (document_types))::int AS invoice,
              count(*) FILTER (WHERE 'credit_note' = ANY (document_types))::int AS credit_note,
              count(*) FILTER (WHERE 'quote' = ANY (document_types))::int AS quote,
              count(*) FILTER (WHERE 'email' = ANY (document_types))::int AS email
         FROM document_templates
        WHERE organization_id = $1 AND workspace_id = $2 AND deleted_at IS NULL
          AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR anchor_key = $4)`,
      [scope.organizationId, scope.workspaceId, filters.status, filters.anchorKey],
    );
    return row;
  }

  async publishedEmailTemplateId(scope: TemplateScope, anchorKey: string): Promise<string | undefined> {
    const [published]: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM document_templates
        WHERE organization_id = $1 AND workspace_id = $2 AND anchor_key = $3 AND kind = 'email' AND status = 'published'
          AND deleted_at IS NULL`,
      [scope.organizationId, scope.workspaceId, anchorKey],
    );
    return published?.id;
  }

  async defaultTemplateId(scope: TemplateScope, documentType: string): Promise<string | undefined> {
    const [slot]: Array<{ template_id: string }> = await this.dataSource.query(
      'SELECT template_id FROM document_template_defaults WHERE organization_id = $1 AND workspace_id = $2 AND document_type = $3',
      [scope.organizationId, scope.workspaceId, documentType],
    );
    return slot?.template_id;
  }
}
