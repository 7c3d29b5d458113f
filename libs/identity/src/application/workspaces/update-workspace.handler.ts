import { Transactional } from '@nestjs-cls/transactional';
import { Injectable } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  Actor,
  AuditLog,
  Clock,
  CursorCodec,
  DomainError,
  isUniqueViolation,
  keysetPage,
  newestFirstPosition,
  TransactionalNotifier,
} from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { WorkspaceRepository } from '../../domain/repositories';
import { Workspace, WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT } from '../../domain/workspace';
import { toWorkspace, WORKSPACE_COLUMNS, WorkspaceRow } from '../../infrastructure/typeorm-workspace.repository';
import { ApprovalExecutor, ExecutesApprovalCheckpoint } from '../approvals/approval-executor';
import { HoldForApprovalCommand } from '../approvals/approval.commands';
import { changeOf, IDENTITY_CHANGES_CHANNEL } from '../authentication/identity-changes';
import {
  CreateWorkspaceCommand,
  ListWorkspacesQuery,
  UpdateWorkspaceCommand,
  UpdateWorkspaceResult,
  WorkspaceChanges,
} from './workspace.commands';
import { toWorkspaceView } from './workspace.view';

@CommandHandler(CreateWorkspaceCommand)
export class CreateWorkspaceHandler implements ICommandHandler<CreateWorkspaceCommand> {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly audit: AuditLog,
    private readonly notifier: TransactionalNotifier,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateWorkspaceCommand) {
    const workspace = Workspace.open({ ...input, organizationId: actor.organizationId, isDefault: false, now: this.clock.now() });
    try {
      await this.workspaces.insert(workspace);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError(
          'conflict',
          'ALREADY_EXISTS',
          `A workspace with slug "${workspace.snapshot.slug}" already exists.`,
          {
            param: 'slug',
          },
        );
      }
      throw error;
    }
    await this.notifier.notify(IDENTITY_CHANGES_CHANNEL, changeOf.workspaces(actor.organizationId));
    await this.audit.record(actor, {
      action: 'workspace.created',
      resourceType: 'workspace',
      resourceId: workspace.snapshot.id,
      data: { slug: workspace.snapshot.slug, mode: workspace.snapshot.mode },
    });
    return toWorkspaceView(workspace);
  }
}

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
    if (!workspace) throw new DomainError('not_found', 'WORKSPACE_NOT_FOUND', 'No such workspace.', { param: 'id' });
    return workspace;
  }
}

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
