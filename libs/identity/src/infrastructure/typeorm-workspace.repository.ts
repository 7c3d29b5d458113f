import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, SharedErrors } from '@app/shared-kernel';
import { OrganizationRecord, OrganizationRepository, WorkspaceRepository } from '../domain/repositories';
import { defaultSettings, Workspace, WorkspaceMode, WorkspaceSettings } from '../domain/workspace';

export interface WorkspaceRow {
  organization_id: string;
  id: string;
  name: string;
  slug: string;
  mode: WorkspaceMode;
  is_default: boolean;
  settings: Partial<WorkspaceSettings>;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const WORKSPACE_COLUMNS = 'organization_id, id, name, slug, mode, is_default, settings, version, created_at, updated_at';

export function toWorkspace(row: WorkspaceRow): Workspace {
  return Workspace.restore({
    organizationId: row.organization_id,
    id: row.id,
    name: row.name,
    slug: row.slug,
    mode: row.mode,
    isDefault: row.is_default,
    settings: { ...defaultSettings(), ...row.settings },
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

@Injectable()
export class TypeOrmWorkspaceRepository extends WorkspaceRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async findForUpdate(organizationId: string, id: string): Promise<Workspace | undefined> {
    if (!isUuid(id)) return undefined;
    const rows: WorkspaceRow[] = await this.txHost.tx.query(
      `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0] && toWorkspace(rows[0]);
  }

  async insert(workspace: Workspace): Promise<void> {
    const s = workspace.snapshot;
    await this.txHost.tx.query(`INSERT INTO workspaces (${WORKSPACE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
      s.organizationId,
      s.id,
      s.name,
      s.slug,
      s.mode,
      s.isDefault,
      JSON.stringify(s.settings),
      s.version,
      s.createdAt,
      s.updatedAt,
    ]);
  }

  /**
   * What a workspace's life changes (name, settings, version, updated_at; its slug, mode and
   * default flag never do), over the version it was loaded at: a workspace changed since is
   * refused, not overwritten.
   */
  async save(workspace: Workspace): Promise<void> {
    const s = workspace.snapshot;
    // For an UPDATE, TypeORM answers [rows, row count].
    const [, saved]: [unknown[], number] = await this.txHost.tx.query(
      `UPDATE workspaces SET name = $3, settings = $4, version = $5, updated_at = $6
        WHERE organization_id = $1 AND id = $2 AND version = $7`,
      [s.organizationId, s.id, s.name, JSON.stringify(s.settings), s.version, s.updatedAt, workspace.storedVersion],
    );
    if (saved !== 1) {
      throw SharedErrors.CONFLICT.create('The workspace was changed meanwhile; read it again and retry.', {
        details: { id: s.id },
      });
    }
  }
}

@Injectable()
export class TypeOrmOrganizationRepository extends OrganizationRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async insert(organization: OrganizationRecord): Promise<void> {
    await this.txHost.tx.query('INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)', [
      organization.id,
      organization.name,
      organization.createdAt,
    ]);
  }

  async count(): Promise<number> {
    const [row] = await this.txHost.tx.query('SELECT count(*)::int AS count FROM organizations');
    return row.count;
  }
}
