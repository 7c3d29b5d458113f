import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { PlanReleases } from '../plan-releases';
import { OpenPlanDraftCommand } from './open-plan-draft.command';
import { loadPlan } from './plan-writes';

@CommandHandler(OpenPlanDraftCommand)
export class OpenPlanDraftHandler implements ICommandHandler<OpenPlanDraftCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, baseVersionId }: OpenPlanDraftCommand): Promise<string> {
    const plan = await loadPlan(this.releases, actor, planId);
    if (
      baseVersionId !== undefined &&
      !plan.line.row(baseVersionId) &&
      !(await this.plans.versionExists(actor, planId, baseVersionId))
    ) {
      throw catalogNotFound('base_version_id', 'version');
    }
    const draft = plan.openDraft({ baseVersionId, now: this.clock.now(), createdBy: createdByOf(actor) });
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.draft_opened',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { version_id: draft.id },
    });
    return draft.id;
  }
}
