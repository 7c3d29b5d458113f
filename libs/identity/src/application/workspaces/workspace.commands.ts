import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { WorkspaceView } from './workspace.view';

export class CreateWorkspaceCommand extends Command<WorkspaceView> {
  constructor(
    readonly actor: Actor,
    readonly input: { name: unknown; slug: unknown; mode: unknown },
  ) {
    super();
  }
}

export class UpdateWorkspaceCommand extends Command<WorkspaceView> {
  constructor(
    readonly actor: Actor,
    readonly workspaceId: string,
    readonly changes: { name?: unknown; settings?: { approval_required_for?: unknown } | null },
  ) {
    super();
  }
}

export class ListWorkspacesQuery extends Query<Page<WorkspaceView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
