import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, isUniqueViolation } from '@app/shared-kernel';
import { OrgCostRepository, ProductRepository } from '../../domain/repositories';
import { RestoreCostCommand } from './restore-cost.command';
import { ProductReleases } from '../product-releases';
import { CatalogEvents } from '../catalog-events';
import { GetCostQuery } from './get-cost.query';
import { createdByOf } from '../created-by';
import { loadCostOwner } from './cost-writes';
import { CatalogErrors } from '../../domain/catalog-errors';

@CommandHandler(RestoreCostCommand)
export class RestoreCostHandler implements ICommandHandler<RestoreCostCommand> {
  constructor(
    private readonly orgCosts: OrgCostRepository,
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: RestoreCostCommand): Promise<string> {
    const { actor, costId } = command;
    return this.catalogEvents.around(actor, 'cost.restored', () => this.run(command), {
      before: () => new GetCostQuery(actor, costId),
      after: () => new GetCostQuery(actor, costId),
    });
  }

  @Transactional()
  private async run({ actor, costId }: RestoreCostCommand): Promise<string> {
    const owner = await loadCostOwner(actor, costId, this.orgCosts, this.products, this.releases);
    const now = this.clock.now();
    if ('org' in owner) {
      const isKeyHead = (await this.orgCosts.newestWithKey(actor, owner.org.snapshot.key)) === costId;
      try {
        if (owner.org.restoreAsKeyHead(isKeyHead, now, createdByOf(actor))) await this.orgCosts.save(owner.org);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        throw CatalogErrors.COST_KEY_NOT_IN_HEAD.create(`Another active ORG cost holds the key "${owner.org.snapshot.key}".`);
      }
    } else {
      owner.product.restoreCost(costId, now, createdByOf(actor));
      await this.products.save(owner.product);
    }
    await this.audit.record(actor, { action: 'cost.restored', resourceType: 'cost', resourceId: costId });
    return costId;
  }
}
