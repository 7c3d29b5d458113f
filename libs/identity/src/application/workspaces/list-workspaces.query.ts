import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { WorkspaceView } from './workspace.view';

export class ListWorkspacesQuery extends Query<Page<WorkspaceView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
