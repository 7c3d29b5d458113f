import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { toWorkspace, WORKSPACE_COLUMNS, WorkspaceRow } from '../../infrastructure/typeorm-workspace.repository';
import { ListWorkspacesQuery } from './list-workspaces.query';
import { toWorkspaceView } from './workspace.view';

@QueryHandler(ListWorkspacesQuery)
export class ListWorkspacesHandler implements IQueryHandler<ListWorkspacesQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor }: ListWorkspacesQuery) {
    const page = await keysetPage<WorkspaceRow>(
      this.cursors,
      { list: 'workspaces', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${WORKSPACE_COLUMNS} FROM workspaces
            WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $4`,
          [actor.organizationId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map((row) => toWorkspaceView(toWorkspace(row))) };
  }
}
