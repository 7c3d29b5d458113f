import { Injectable } from '@nestjs/common';
import { Actor } from '@app/shared-kernel';
import { WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT } from '../../domain/workspace';
import { ApprovalExecutor, ExecutesApprovalCheckpoint } from '../approvals/approval-executor';
import { WorkspaceChanges } from './update-workspace.command';
import { UpdateWorkspaceHandler } from './update-workspace.handler';

/** Applies a held change of a workspace's approval checkpoints once a second human approved it. */
@Injectable()
@ExecutesApprovalCheckpoint(WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT)
export class WorkspaceApprovalSettingsExecutor implements ApprovalExecutor {
  constructor(private readonly updates: UpdateWorkspaceHandler) {}

  execute(payload: Record<string, unknown>, { requester }: { requester: Actor; approver: Actor }): Promise<unknown> {
    return this.updates.apply(requester, String(payload.workspace_id), {
      name: payload.name,
      settings: payload.settings as WorkspaceChanges['settings'],
    });
  }
}
