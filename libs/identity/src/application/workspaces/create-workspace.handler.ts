import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, isUniqueViolation, TransactionalNotifier, SharedErrors } from '@app/shared-kernel';
import { WorkspaceRepository } from '../../domain/repositories';
import { Workspace } from '../../domain/workspace';
import { changeOf, IDENTITY_CHANGES_CHANNEL } from '../authentication/identity-changes';
import { CreateWorkspaceCommand } from './create-workspace.command';
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
        throw SharedErrors.ALREADY_EXISTS.create(`A workspace with slug "${workspace.snapshot.slug}" already exists.`, {
          param: 'slug',
        });
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
