import { Transactional } from '@nestjs-cls/transactional';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, TransactionalNotifier } from '@app/shared-kernel';
import { WorkspaceRepository } from '../../domain/repositories';
import { Workspace, WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT } from '../../domain/workspace';
import { HoldForApprovalCommand } from '../approvals/hold-for-approval.command';
import { changeOf, IDENTITY_CHANGES_CHANNEL } from '../authentication/identity-changes';
import { UpdateWorkspaceCommand, UpdateWorkspaceResult, WorkspaceChanges } from './update-workspace.command';
import { toWorkspaceView } from './workspace.view';
import { IdentityErrors } from '../../domain/identity-errors';

@CommandHandler(UpdateWorkspaceCommand)
export class UpdateWorkspaceHandler implements ICommandHandler<UpdateWorkspaceCommand> {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly commands: CommandBus,
    private readonly audit: AuditLog,
    private readonly notifier: TransactionalNotifier,
    private readonly clock: Clock,
  ) {}

  /**
   * A change that removes an approval checkpoint is held for a second human (an API key is
   * refused with APPROVAL_REQUIRED_HUMAN); any other change applies at once. 404 and 400 come
   * first: nothing is held that could never apply.
   */
  @Transactional()
  async execute({ actor, workspaceId, changes }: UpdateWorkspaceCommand): Promise<UpdateWorkspaceResult> {
    const { removedCheckpoints } = (await this.load(actor, workspaceId)).update(changes, this.clock.now());
    if (removedCheckpoints.length > 0) {
      const hold = await this.commands.execute(
        new HoldForApprovalCommand(actor, WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT, {
          workspace_id: workspaceId,
          name: changes.name ?? null,
          settings: changes.settings ?? null,
          removes: removedCheckpoints,
        }),
      );
      if (hold.held) {
        return {
          held: true,
          approvalId: hold.approval.id,
          approvalStatus: hold.approval.status,
          checkpoint: WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT,
        };
      }
    }
    return { held: false, workspace: await this.apply(actor, workspaceId, changes) };
  }

  /** Runs inside the caller's transaction (this handler's, or an approval's). */
  async apply(actor: Actor, workspaceId: string, changes: WorkspaceChanges) {
    const workspace = await this.load(actor, workspaceId);
    const { removedCheckpoints } = workspace.update(changes, this.clock.now());
    await this.workspaces.save(workspace);
    await this.notifier.notify(IDENTITY_CHANGES_CHANNEL, changeOf.workspaces(actor.organizationId));
    await this.audit.record(actor, {
      action: 'workspace.updated',
      resourceType: 'workspace',
      resourceId: workspaceId,
      data: { name: workspace.snapshot.name, settings: workspace.snapshot.settings, removed_checkpoints: removedCheckpoints },
    });
    return toWorkspaceView(workspace);
  }

  private async load(actor: Actor, workspaceId: string): Promise<Workspace> {
    const workspace = await this.workspaces.findForUpdate(actor.organizationId, workspaceId);
    if (!workspace) throw IdentityErrors.WORKSPACE_NOT_FOUND.create('No such workspace.', { param: 'id' });
    return workspace;
  }
}
