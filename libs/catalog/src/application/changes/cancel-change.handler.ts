import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ChangeRepository } from '../../domain/repositories';
import { CancelChangeCommand } from './cancel-change.command';
import { PublishTargets, SubjectKind } from './publish-targets';

@CommandHandler(CancelChangeCommand)
export class CancelChangeHandler implements ICommandHandler<CancelChangeCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly targets: PublishTargets,
    private readonly changes: ChangeRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, changeId }: CancelChangeCommand) {
    if (!isUuid(changeId)) throw catalogNotFound(undefined, 'change');
    const [subject] = await preparedQuery<{
      subject_kind: SubjectKind;
      subject_id: string;
      status: string;
      scheduled_for: Date | null;
    }>(
      this.txHost.tx,
      `SELECT subject_kind, subject_id, status, scheduled_for FROM changes WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [actor.organizationId, actor.workspaceId, changeId],
    );
    if (!subject) throw catalogNotFound(undefined, 'change');
    // A due release has gone live whether or not its job ran: fire it for good (own transaction), then refuse.
    if (subject.status === 'pending' && subject.scheduled_for && subject.scheduled_for.getTime() <= this.clock.now().getTime()) {
      await this.targets.fireDue(actor, subject.subject_kind, subject.subject_id);
    }
    // Subject first, then the change: the order catch-up takes, so the two never deadlock.
    const target = await this.targets.load(actor, subject.subject_kind, subject.subject_id);
    const change = (await this.changes.lock(actor, changeId))!;
    const now = this.clock.now();
    change.cancel(now);
    const version = target?.line.queue.find((row) => row.changeId === changeId);
    const dependents = version && target ? target.cancelRelease(version.id, now).dependents : [];
    await this.changes.save(change);
    if (target) await target.save();
    await this.audit.record(actor, { action: 'change.canceled', resourceType: 'change', resourceId: changeId });
    return { changeId, dependents: dependents.map((row) => ({ id: row.id, version: row.version, status: row.status })) };
  }
}
