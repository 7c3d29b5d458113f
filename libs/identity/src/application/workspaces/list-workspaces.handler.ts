import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { ListWorkspacesQuery } from './list-workspaces.query';
import { WorkspaceReads } from './workspace-reads';
import { toWorkspaceView } from './workspace.view';

@QueryHandler(ListWorkspacesQuery)
export class ListWorkspacesHandler implements IQueryHandler<ListWorkspacesQuery> {
  constructor(
    private readonly workspaces: WorkspaceReads,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor }: ListWorkspacesQuery) {
    const page = await keysetPage(
      this.cursors,
      { list: 'workspaces', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) => this.workspaces.list(actor.organizationId, after, rows),
      (workspace) => newestFirstPosition({ created_at: workspace.snapshot.createdAt, id: workspace.snapshot.id }),
    );
    return { ...page, data: page.data.map((workspace) => toWorkspaceView(workspace)) };
  }
}
