import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { PlanReleases } from '../plan-releases';
import { RemovePlanProductCommand } from './remove-plan-product.command';
import { loadPlan } from './plan-writes';

@CommandHandler(RemovePlanProductCommand)
export class RemovePlanProductHandler implements ICommandHandler<RemovePlanProductCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, productId }: RemovePlanProductCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    plan.removeMembership(productId, this.clock.now(), createdByOf(actor));
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.product_removed',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { product_id: productId },
    });
  }
}
