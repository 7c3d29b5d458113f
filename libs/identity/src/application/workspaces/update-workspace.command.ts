import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { WorkspaceView } from './workspace.view';

export type WorkspaceChanges = { name?: unknown; settings?: { approval_required_for?: unknown } | null };

/** Applied at once, or (when it removes an approval checkpoint) held for a second human's approval. */
export type UpdateWorkspaceResult =
  { held: false; workspace: WorkspaceView } | { held: true; approvalId: string; approvalStatus: string; checkpoint: string };

export class UpdateWorkspaceCommand extends Command<UpdateWorkspaceResult> {
  constructor(
    readonly actor: Actor,
    readonly workspaceId: string,
    readonly changes: WorkspaceChanges,
  ) {
    super();
  }
}
