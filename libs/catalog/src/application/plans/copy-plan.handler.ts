import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { Plan } from '../../domain/plan';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { PlanReleases } from '../plan-releases';
import { CopyPlanCommand } from './copy-plan.command';
import { CatalogEvents } from '../catalog-events';
import { GetPlanQuery } from './get-plan.query';
import { nameOf } from './plan-input';
import { savePlan, loadPlan } from './plan-writes';

@CommandHandler(CopyPlanCommand)
export class CopyPlanHandler implements ICommandHandler<CopyPlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  /** A draft plan at version 1 with the source's live fields (not external_id) and working-view content; no versions. */
  @Transactional()
  async execute(command: CopyPlanCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'plan.created', () => this.run(command), {
      after: (id) => new GetPlanQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, planId, name }: CopyPlanCommand): Promise<string> {
    const source = await loadPlan(this.releases, actor, planId);
    const details = source.snapshot.details;
    const content = source.workingContent;
    const now = this.clock.now();
    const createdBy = createdByOf(actor);
    const copy = Plan.create({
      ...actor,
      details: {
        ...structuredClone(details),
        name: name === undefined ? `${details.name} (Copy)`.slice(0, 200) : nameOf(name),
        externalId: null,
      },
      priceCadenceUnit: content.priceCadenceUnit,
      now,
      createdBy,
    });
    for (const membership of [...content.memberships].sort((a, b) => a.position - b.position)) {
      const tracking = source.trackingOf(membership.productId) ?? { trackMode: 'latest' as const, pinnedProductVersionId: null };
      copy.addMembership({ productId: membership.productId, terms: membership.terms, tracking: { ...tracking }, now, createdBy });
    }
    await savePlan(this.plans, copy);
    await this.audit.record(actor, {
      action: 'plan.copied',
      resourceType: 'plan',
      resourceId: copy.id,
      data: { source_plan_id: source.id },
    });
    return copy.id;
  }
}
