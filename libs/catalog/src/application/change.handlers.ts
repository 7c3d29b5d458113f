import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter, isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../domain/catalog-errors';
import { Change } from '../domain/change';
import { ChangeRepository } from '../domain/repositories';
import { CancelChangeCommand, CreateChangeCommand } from './catalog.commands';
import { createdByOf } from './cost.handlers';
import { PlanCascades } from './plan-cascades';
import { PublishTargets, SubjectKind } from './publish-targets';

@CommandHandler(CreateChangeCommand)
export class CreateChangeHandler implements ICommandHandler<CreateChangeCommand> {
  constructor(
    private readonly targets: PublishTargets,
    private readonly changes: ChangeRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly planCascades: PlanCascades,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateChangeCommand): Promise<string> {
    if (input.subjectKind === 'product' && input.pins !== undefined) {
      throw invalidParameter('pins', 'INVALID_VALUE', 'pins apply to plan versions only.');
    }
    const target = await this.targets.load(actor, input.subjectKind, input.subjectId);
    if (!target) throw catalogNotFound('subject_id', input.subjectKind);
    await this.targets.assertStagedVersion(actor, target, input.stagedVersionId);
    const now = this.clock.now();
    const pins = input.pins ?? [];
    const change = Change.request({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      subjectKind: input.subjectKind,
      subjectId: target.id,
      stagedVersionId: input.stagedVersionId,
      scheduledFor: input.scheduledFor ?? null,
      pins,
      releaseName: input.releaseName ?? null,
      releaseNote: input.releaseNote ?? null,
      createdBy: createdByOf(actor),
      createdAt: now,
    });
    const goLive = {
      stagedVersionId: input.stagedVersionId,
      changeId: change.id,
      now,
      pins,
      releaseName: input.releaseName,
      releaseNote: input.releaseNote,
    };
    if (input.scheduledFor) {
      await target.schedule({ ...goLive, scheduledFor: input.scheduledFor });
      await this.changes.save(change);
      await target.enqueue(change.id, input.scheduledFor);
    } else {
      const published = await target.publish(goLive);
      change.applied(published, now);
      await this.changes.save(change);
      // A product going live moves the plans that track it `latest` (model §3.5).
      if (target.kind === 'product') {
        await this.planCascades.afterProductGoLive(
          actor,
          { productId: target.id, versionId: published.id, version: published.version },
          createdByOf(actor),
        );
      }
    }
    await target.save();
    await this.audit.record(actor, {
      action: input.scheduledFor ? 'change.scheduled' : 'change.applied',
      resourceType: 'change',
      resourceId: change.id,
      data: { subject_kind: input.subjectKind, subject_id: target.id, staged_version_id: input.stagedVersionId },
    });
    return change.id;
  }
}

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
