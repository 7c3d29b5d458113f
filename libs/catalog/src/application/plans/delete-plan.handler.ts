import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { ChangeRepository, PlanRepository } from '../../domain/repositories';
import { cancelChangesOf } from '../canceled-releases';
import { PlanReleases } from '../plan-releases';
import { DeletePlanCommand } from './delete-plan.command';
import { CatalogEvents } from '../catalog-events';
import { GetPlanQuery } from './get-plan.query';
import { loadPlan } from './plan-writes';

@CommandHandler(DeletePlanCommand)
export class DeletePlanHandler implements ICommandHandler<DeletePlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: DeletePlanCommand): Promise<void> {
    const { actor, planId } = command;
    return this.catalogEvents.around(actor, 'plan.deleted', () => this.run(command), {
      before: () => new GetPlanQuery(actor, planId),
    });
  }

  @Transactional()
  private async run({ actor, planId }: DeletePlanCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    const now = this.clock.now();
    const canceled = plan.delete(now);
    await cancelChangesOf(this.changes, actor, canceled, now);
    await this.plans.save(plan);
    await this.audit.record(actor, { action: 'plan.deleted', resourceType: 'plan', resourceId: plan.id });
  }
}
