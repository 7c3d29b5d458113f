import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { Plan } from '../../domain/plan';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { CreatePlanCommand } from './create-plan.command';
import { CatalogEvents } from '../catalog-events';
import { GetPlanQuery } from './get-plan.query';
import { cadenceOf, nameOf, detailChanges } from './plan-input';
import { savePlan } from './plan-writes';

@CommandHandler(CreatePlanCommand)
export class CreatePlanHandler implements ICommandHandler<CreatePlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: CreatePlanCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'plan.created', () => this.run(command), {
      after: (id) => new GetPlanQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, input }: CreatePlanCommand): Promise<string> {
    const changes = detailChanges(input);
    const plan = Plan.create({
      ...actor,
      details: {
        name: nameOf(input.name),
        description: changes.description ?? null,
        publicDescription: changes.publicDescription ?? null,
        externalId: changes.externalId ?? null,
        metadata: changes.metadata ?? {},
        customFields: changes.customFields ?? {},
        translations: changes.translations ?? {},
        tags: changes.tags ?? [],
      },
      priceCadenceUnit:
        input.priceCadenceUnit === undefined || input.priceCadenceUnit === null ? 'month' : cadenceOf(input.priceCadenceUnit),
      now: this.clock.now(),
      createdBy: createdByOf(actor),
    });
    await savePlan(this.plans, plan);
    await this.audit.record(actor, { action: 'plan.created', resourceType: 'plan', resourceId: plan.id });
    return plan.id;
  }
}
