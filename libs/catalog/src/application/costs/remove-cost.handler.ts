import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { OrgCostRepository, ProductRepository } from '../../domain/repositories';
import { CostCascades } from './cost-cascades';
import { RemoveCostCommand } from './remove-cost.command';
import { ProductReleases } from '../product-releases';
import { CatalogEvents } from '../catalog-events';
import { GetCostQuery } from './get-cost.query';
import { createdByOf } from '../created-by';
import { loadCostOwner } from './cost-writes';

@CommandHandler(RemoveCostCommand)
export class RemoveCostHandler implements ICommandHandler<RemoveCostCommand> {
  constructor(
    private readonly orgCosts: OrgCostRepository,
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly cascades: CostCascades,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: RemoveCostCommand): Promise<void> {
    const { actor, costId } = command;
    // A removed cost is retired (its GET answers 404): the event carries it as last seen.
    return this.catalogEvents.around(actor, 'cost.removed', () => this.run(command), {
      before: () => new GetCostQuery(actor, costId),
    });
  }

  @Transactional()
  private async run({ actor, costId }: RemoveCostCommand): Promise<void> {
    const owner = await loadCostOwner(actor, costId, this.orgCosts, this.products, this.releases);
    const now = this.clock.now();
    if ('org' in owner) {
      if (owner.org.snapshot.state !== 'active') throw catalogNotFound(undefined, 'cost');
      const revision = owner.org.retire(now, createdByOf(actor));
      await this.orgCosts.save(owner.org);
      await this.cascades.start(actor, owner.org, revision, 'cost_retire');
      await this.audit.record(actor, { action: 'cost.retired', resourceType: 'cost', resourceId: costId });
      return;
    }
    owner.product.removeCost(costId, now, createdByOf(actor));
    await this.products.save(owner.product);
    await this.audit.record(actor, {
      action: 'cost.removed',
      resourceType: 'cost',
      resourceId: costId,
      data: { product_id: owner.product.id },
    });
  }
}
