import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WorkspaceView } from './workspace.view';

export class CreateWorkspaceCommand extends Command<WorkspaceView> {
  constructor(
    readonly actor: Actor,
    readonly input: { name: unknown; slug: unknown; mode: unknown },
  ) {
    super();
  }
}
