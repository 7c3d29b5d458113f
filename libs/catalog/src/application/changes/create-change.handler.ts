import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { Change } from '../../domain/change';
import { ChangeRepository } from '../../domain/repositories';
import { CreateChangeCommand } from './create-change.command';
import { createdByOf } from '../created-by';
import { PlanCascades } from '../plan-cascades';
import { PublishTargets } from './publish-targets';

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
