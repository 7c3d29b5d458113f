import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { executeWrites, isUuid, preparedQuery, sameTenant, SqlWrite } from '@app/shared-kernel';
import { DocumentTemplate, PrintedDocumentType } from '../domain/document-template';
import { Tenant, TemplateRepository } from '../domain/template.repository';
import { rowValues, TEMPLATE_COLUMNS, TemplateRow, toTemplate } from './template-rows';

@Injectable()
export class TypeOrmTemplateRepository extends TemplateRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async find({ organizationId, workspaceId }: Tenant, id: string, lock?: 'share'): Promise<DocumentTemplate | undefined> {
    if (!isUuid(id)) return undefined;
    const rows = await preparedQuery<TemplateRow>(
      this.txHost.tx,
      `SELECT ${TEMPLATE_COLUMNS} FROM document_templates
        WHERE id = $3 AND deleted_at IS NULL AND ${sameTenant(null, '$1', '$2')}${lock === 'share' ? ' FOR SHARE' : ''}`,
      [organizationId, workspaceId, id],
    );
    return rows[0] && toTemplate(rows[0]);
  }

  async publishedFor({ organizationId, workspaceId }: Tenant, anchorKey: string): Promise<string | undefined> {
    const rows = await preparedQuery<{ id: string }>(
      this.txHost.tx,
      `SELECT id FROM document_templates
        WHERE organization_id = $1 AND workspace_id = $2 AND anchor_key = $3 AND kind = 'email' AND status = 'published'
          AND deleted_at IS NULL`,
      [organizationId, workspaceId, anchorKey],
    );
    return rows[0]?.id;
  }

  async insert(template: DocumentTemplate, ...alongside: SqlWrite[]): Promise<void> {
    await executeWrites(this.txHost.tx, [
      {
        text: `INSERT INTO document_templates (${TEMPLATE_COLUMNS})
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        values: rowValues(template.snapshot),
      },
      ...alongside,
    ]);
  }

  async saveIfVersion(template: DocumentTemplate, expectedVersion: number, ...alongside: SqlWrite[]): Promise<boolean> {
    const s = template.snapshot;
    // The audit row joins the same statement only once the guarded UPDATE matched: a stale
    // version writes nothing at all.
    const updated = await preparedQuery<{ id: string }>(
      this.txHost.tx,
      `UPDATE document_templates
          SET name = $4, description = $5, document_types = $6, status = $7, template_json = $8, schema_version = $9,
              version = $10, updated_at = $11, deleted_at = $12
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND version = $13 AND deleted_at IS NULL
        RETURNING id`,
      [
        s.organizationId,
        s.workspaceId,
        s.id,
        s.name,
        s.description,
        s.documentTypes,
        s.status,
        JSON.stringify(s.document),
        s.schemaVersion,
        s.version,
        s.updatedAt,
        s.deletedAt,
        expectedVersion,
      ],
    );
    if (updated.length === 0) return false;
    await executeWrites(this.txHost.tx, alongside);
    return true;
  }

  async currentVersion({ organizationId, workspaceId }: Tenant, id: string): Promise<number | undefined> {
    const rows = await preparedQuery<{ version: number }>(
      this.txHost.tx,
      `SELECT version FROM document_templates WHERE id = $3 AND deleted_at IS NULL AND ${sameTenant(null, '$1', '$2')}`,
      [organizationId, workspaceId, id],
    );
    return rows[0]?.version;
  }

  async defaultsHeldBy({ organizationId, workspaceId }: Tenant, id: string): Promise<PrintedDocumentType[]> {
    const rows = await preparedQuery<{ document_type: PrintedDocumentType }>(
      this.txHost.tx,
      `SELECT document_type FROM document_template_defaults
        WHERE organization_id = $1 AND workspace_id = $2 AND template_id = $3 ORDER BY document_type`,
      [organizationId, workspaceId, id],
    );
    return rows.map((row) => row.document_type);
  }

  async holderOf({ organizationId, workspaceId }: Tenant, type: PrintedDocumentType): Promise<string | undefined> {
    const rows = await preparedQuery<{ template_id: string }>(
      this.txHost.tx,
      'SELECT template_id FROM document_template_defaults WHERE organization_id = $1 AND workspace_id = $2 AND document_type = $3',
      [organizationId, workspaceId, type],
    );
    return rows[0]?.template_id;
  }

  async setDefault(
    { organizationId, workspaceId }: Tenant,
    type: PrintedDocumentType,
    templateId: string,
    now: Date,
    ...alongside: SqlWrite[]
  ): Promise<void> {
    await executeWrites(this.txHost.tx, [
      {
        text: `INSERT INTO document_template_defaults (organization_id, workspace_id, document_type, template_id, updated_at)
               VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (organization_id, workspace_id, document_type) DO UPDATE SET template_id = $4, updated_at = $5`,
        values: [organizationId, workspaceId, type, templateId, now],
      },
      ...alongside,
    ]);
  }

  async releaseDefaults(
    { organizationId, workspaceId }: Tenant,
    templateId: string,
    types: readonly PrintedDocumentType[],
  ): Promise<PrintedDocumentType[]> {
    if (types.length === 0) return [];
    const rows = await preparedQuery<{ document_type: PrintedDocumentType }>(
      this.txHost.tx,
      `DELETE FROM document_template_defaults
        WHERE organization_id = $1 AND workspace_id = $2 AND template_id = $3 AND document_type = ANY ($4::text[])
        RETURNING document_type`,
      [organizationId, workspaceId, templateId, [...types]],
    );
    return rows.map((row) => row.document_type).sort();
  }
}
