import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { PlanRepository } from '../../domain/repositories';
import { PlanReleases } from '../plan-releases';
import { DiscardPlanDraftCommand } from './discard-plan-draft.command';
import { loadPlan } from './plan-writes';

@CommandHandler(DiscardPlanDraftCommand)
export class DiscardPlanDraftHandler implements ICommandHandler<DiscardPlanDraftCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId }: DiscardPlanDraftCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    const draft = plan.discardDraft(this.clock.now());
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.draft_discarded',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { version_id: draft.id },
    });
  }
}
