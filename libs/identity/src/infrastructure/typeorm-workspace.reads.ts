import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WorkspaceReads } from '../application/workspaces/workspace-reads';
import { Workspace } from '../domain/workspace';
import { toWorkspace, WORKSPACE_COLUMNS, WorkspaceRow } from './typeorm-workspace.repository';

@Injectable()
export class TypeOrmWorkspaceReads extends WorkspaceReads {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(organizationId: string, after: unknown[] | undefined, limit: number): Promise<Workspace[]> {
    const rows: WorkspaceRow[] = await this.dataSource.query(
      `SELECT ${WORKSPACE_COLUMNS} FROM workspaces
        WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [organizationId, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows.map(toWorkspace);
  }
}
