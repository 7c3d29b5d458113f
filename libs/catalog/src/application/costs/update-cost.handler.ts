import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { amountValue, CostValue, expressionValue } from '../../domain/cost-value';
import { OrgCostRepository, ProductRepository } from '../../domain/repositories';
import { CostCascades } from './cost-cascades';
import { UpdateCostCommand } from './update-cost.command';
import { Pricing } from '../pricing';
import { ProductReleases } from '../product-releases';
import { CatalogEvents } from '../catalog-events';
import { GetCostQuery } from './get-cost.query';
import { createdByOf } from '../created-by';
import { valueInput, loadCostOwner } from './cost-writes';
import { workingContent } from '../working-content';

@CommandHandler(UpdateCostCommand)
export class UpdateCostHandler implements ICommandHandler<UpdateCostCommand> {
  constructor(
    private readonly orgCosts: OrgCostRepository,
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly pricing: Pricing,
    private readonly cascades: CostCascades,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: UpdateCostCommand): Promise<string> {
    const { actor, costId } = command;
    return this.catalogEvents.around(actor, 'cost.updated', () => this.run(command), {
      before: () => new GetCostQuery(actor, costId),
      after: () => new GetCostQuery(actor, costId),
    });
  }

  @Transactional()
  private async run({ actor, costId, input }: UpdateCostCommand): Promise<string> {
    if (input.saveAsDraft === true) {
      throw CatalogErrors.DRAFT_NOT_SUPPORTED.create(
        'A cost has no draft of its own: its value is versioned through the product or the ORG revision.',
        {
          param: 'save_as_draft',
        },
      );
    }
    const given = valueInput(input, false);
    const controls = input.effectiveAt != null || input.saveAsDraft != null;
    if (!given && controls) {
      throw CatalogErrors.PUBLISH_CONTROLS_NOT_ALLOWED.create(
        'effective_at and save_as_draft apply to a value change (amount or expression) only.',
        {
          param: input.effectiveAt != null ? 'effective_at' : 'save_as_draft',
        },
      );
    }
    const now = this.clock.now();
    if (input.effectiveAt && input.effectiveAt.getTime() < now.getTime()) {
      throw invalidParameter('effective_at', 'OUT_OF_RANGE', 'effective_at must not be in the past.');
    }
    const effectiveAt = input.effectiveAt ?? now;
    const owner = await loadCostOwner(actor, costId, this.orgCosts, this.products, this.releases);
    const display = {
      description: input.description,
      metadata: input.metadata,
      translations: input.translations,
      requiresContinuousCoverage: input.requiresContinuousCoverage,
    };
    if ('org' in owner) {
      const cost = owner.org;
      if (cost.snapshot.state !== 'active') throw catalogNotFound(undefined, 'cost');
      cost.editDisplay(display, now);
      if (given) {
        const value: CostValue =
          'amount' in given
            ? amountValue(given.amount)
            : expressionValue(
                given.expression,
                await this.pricing.checkOrgExpression(actor, cost.snapshot.key, cost.id, given.expression, now),
              );
        const revision = cost.saveValue(value, effectiveAt, now, createdByOf(actor));
        await this.orgCosts.save(cost);
        // Saved first so the pre-flight resolves the new revision; a refusal rolls the save back.
        await this.cascades.preflight(actor, cost, effectiveAt);
        await this.cascades.start(actor, cost, revision, 'cost_value');
      } else {
        await this.orgCosts.save(cost);
      }
      await this.audit.record(actor, {
        action: given ? 'cost.value_saved' : 'cost.updated',
        resourceType: 'cost',
        resourceId: cost.id,
        data: given ? { revision: cost.snapshot.currentRevisionNo, effective_at: effectiveAt } : {},
      });
      return cost.id;
    }
    const product = owner.product;
    product.editCostDisplay(costId, display, now);
    if (given) {
      const cost = product.cost(costId)!;
      const value: CostValue =
        'amount' in given
          ? amountValue(given.amount)
          : expressionValue(
              given.expression,
              await this.pricing.checkProductExpression(
                actor,
                workingContent(product),
                { key: cost.key, costId },
                given.expression,
                now,
              ),
            );
      product.stageCostValue(costId, value, effectiveAt, now, createdByOf(actor));
    }
    await this.products.save(product);
    await this.audit.record(actor, {
      action: given ? 'cost.value_staged' : 'cost.updated',
      resourceType: 'cost',
      resourceId: costId,
      data: { product_id: product.id },
    });
    return costId;
  }
}
