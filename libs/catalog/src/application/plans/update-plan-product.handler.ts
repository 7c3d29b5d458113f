import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { termsForUpdate } from '../../domain/membership-terms';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { PlanReleases } from '../plan-releases';
import { UpdatePlanProductCommand } from './update-plan-product.command';
import { loadPlan } from './plan-writes';
import { CatalogErrors } from '../../domain/catalog-errors';

@CommandHandler(UpdatePlanProductCommand)
export class UpdatePlanProductHandler implements ICommandHandler<UpdatePlanProductCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, productId, terms, groups, trackMode }: UpdatePlanProductCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    const membership = plan.membership(productId);
    if (!membership) throw CatalogErrors.PRODUCT_NOT_ON_PLAN.create('This product is not on the plan.', { param: 'product_id' });
    const touchesTerms =
      Object.values(terms).some((value) => value !== undefined) || groups.band === true || groups.allowance === true;
    const merged = touchesTerms ? termsForUpdate(membership.terms, terms, groups) : undefined;
    plan.updateMembership(productId, { terms: merged, trackMode }, this.clock.now(), createdByOf(actor));
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.product_updated',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { product_id: productId },
    });
  }
}
