import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter } from '@app/shared-kernel';
import { CatalogErrors } from '../../domain/catalog-errors';
import { ChangeRepository, PlanRepository } from '../../domain/repositories';
import { cancelChangesOf } from '../canceled-releases';
import { createdByOf } from '../created-by';
import { PlanReleases } from '../plan-releases';
import { UpdatePlanCommand } from './update-plan.command';
import { CatalogEvents } from '../catalog-events';
import { GetPlanQuery } from './get-plan.query';
import { cadenceOf, detailChanges } from './plan-input';
import { savePlan, loadPlan } from './plan-writes';

@CommandHandler(UpdatePlanCommand)
export class UpdatePlanHandler implements ICommandHandler<UpdatePlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  /** Merge-patch: display fields land live, the cadence is staged, status archives only; never publishes. */
  @Transactional()
  async execute(command: UpdatePlanCommand): Promise<string> {
    const { actor, planId } = command;
    return this.catalogEvents.around(actor, 'plan.updated', () => this.run(command), {
      before: () => new GetPlanQuery(actor, planId),
      after: () => new GetPlanQuery(actor, planId),
    });
  }

  @Transactional()
  private async run({ actor, planId, input }: UpdatePlanCommand): Promise<string> {
    if (input.status === 'active') {
      throw CatalogErrors.PUBLISH_VIA_CHANGE_REQUIRED.create(
        'A plan goes live through POST /v1/changes (catalog.publish_version).',
        { param: 'status' },
      );
    }
    if (input.status === 'draft' || input.status === 'scheduled') {
      throw CatalogErrors.STATUS_NOT_WRITABLE.create(
        `status ${input.status} follows from the plan's versions; only "archived" can be set.`,
        { param: 'status' },
      );
    }
    if (input.status !== undefined && input.status !== null && input.status !== 'archived') {
      throw invalidParameter('status', 'INVALID_VALUE', 'status must be "archived".');
    }
    const cadence =
      input.priceCadenceUnit === undefined || input.priceCadenceUnit === null ? undefined : cadenceOf(input.priceCadenceUnit);
    const changes = detailChanges(input);
    const plan = await loadPlan(this.releases, actor, planId);
    plan.expectVersion(input.expectedVersion);
    const now = this.clock.now();
    plan.updateDetails(changes, now);
    if (cadence && cadence !== plan.workingContent.priceCadenceUnit) plan.stageCadence(cadence, now, createdByOf(actor));
    if (input.status === 'archived') {
      const canceled = plan.archive(now);
      await cancelChangesOf(this.changes, actor, canceled, now);
    }
    await savePlan(this.plans, plan);
    await this.audit.record(actor, {
      action: input.status === 'archived' ? 'plan.archived' : 'plan.updated',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { fields: Object.keys(changes), ...(cadence ? { price_cadence_unit: cadence } : {}) },
    });
    return plan.id;
  }
}
