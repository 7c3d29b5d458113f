import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, invalidParameter, isUniqueViolation, SharedErrors } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { amountValue, assertCostKey, CostDisplay, CostValue, expressionValue } from '../../domain/cost-value';
import { OrgCost } from '../../domain/org-cost';
import { OrgCostRepository, ProductRepository } from '../../domain/repositories';
import { CostInput, CreateCostCommand } from './create-cost.command';
import { Pricing } from '../pricing';
import { ProductReleases } from '../product-releases';
import { CatalogEvents } from '../catalog-events';
import { GetCostQuery } from './get-cost.query';
import { createdByOf } from '../created-by';
import { valueInput } from './cost-writes';
import { workingContent } from '../working-content';

function displayOf(input: CostInput): CostDisplay {
  return {
    description: input.description || null,
    metadata: input.metadata ?? {},
    translations: input.translations ?? {},
    requiresContinuousCoverage: false,
  };
}

@CommandHandler(CreateCostCommand)
export class CreateCostHandler implements ICommandHandler<CreateCostCommand> {
  constructor(
    private readonly orgCosts: OrgCostRepository,
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly pricing: Pricing,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: CreateCostCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'cost.created', () => this.run(command), {
      after: (id) => new GetCostQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, productId, input }: CreateCostCommand): Promise<string> {
    const key = assertCostKey(input.key);
    if (input.productId !== undefined && input.productId !== null && input.productId !== productId) {
      throw invalidParameter(
        'product_id',
        'INVALID_VALUE',
        productId
          ? 'product_id must match the product of the path.'
          : 'product_id must be null: create a PRODUCT cost under /v1/products/{id}/costs.',
      );
    }
    const given = valueInput(input, true)!;
    const now = this.clock.now();
    return productId === undefined
      ? this.createOrgCost(actor, key, given, input, now)
      : this.createProductCost(actor, productId, key, given, input, now);
  }

  private async createOrgCost(
    actor: Actor,
    key: string,
    given: { amount: string } | { expression: string },
    input: CostInput,
    now: Date,
  ) {
    const value: CostValue =
      'amount' in given
        ? amountValue(given.amount)
        : expressionValue(given.expression, await this.pricing.checkOrgExpression(actor, key, undefined, given.expression, now));
    const cost = OrgCost.create({ ...actor, key, value, display: displayOf(input), now, createdBy: createdByOf(actor) });
    try {
      await this.orgCosts.save(cost);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw SharedErrors.ALREADY_EXISTS.create(`An active ORG cost already has the key "${key}".`, { param: 'key' });
    }
    await this.audit.record(actor, {
      action: 'cost.created',
      resourceType: 'cost',
      resourceId: cost.id,
      data: { key, scope: 'ORG' },
    });
    return cost.id;
  }

  private async createProductCost(
    actor: Actor,
    productId: string,
    key: string,
    given: { amount: string } | { expression: string },
    input: CostInput,
    now: Date,
  ) {
    const product = await this.releases.load(actor, productId);
    if (!product) throw catalogNotFound(undefined, 'product');
    const value: CostValue =
      'amount' in given
        ? amountValue(given.amount)
        : expressionValue(
            given.expression,
            await this.pricing.checkProductExpression(actor, workingContent(product), { key }, given.expression, now),
          );
    const cost = product.addCost({ key, value, display: displayOf(input), effectiveAt: now, now, createdBy: createdByOf(actor) });
    await this.products.save(product);
    await this.audit.record(actor, {
      action: 'cost.created',
      resourceType: 'cost',
      resourceId: cost.id,
      data: { key, scope: 'PRODUCT', product_id: productId },
    });
    return cost.id;
  }
}
