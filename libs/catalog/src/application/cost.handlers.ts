import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, DomainError, invalidParameter, isUniqueViolation, principalRef } from '@app/shared-kernel';
import { catalogInvalid, catalogNotFound } from '../domain/catalog-errors';
import { amountValue, assertCostKey, CostDisplay, CostValue, expressionValue } from '../domain/cost-value';
import { OrgCost } from '../domain/org-cost';
import { Product } from '../domain/product';
import { OrgCostRepository, ProductRepository } from '../domain/repositories';
import { CreatedBy } from '../domain/version-line';
import { CostCascades } from './cost-cascades';
import { CostInput, CreateCostCommand, RemoveCostCommand, RestoreCostCommand, UpdateCostCommand } from './catalog.commands';
import { Pricing } from './pricing';
import { ProductReleases } from './product-releases';
import { CatalogEvents } from './catalog-events';
import { GetCostQuery } from './catalog.queries';

export function createdByOf(actor: Actor): CreatedBy {
  return principalRef(actor.principal);
}

/** Exactly one of amount or expression (`required`: on create). */
function valueInput(
  input: { amount?: string | null; expression?: string | null },
  required: boolean,
): { amount: string } | { expression: string } | null {
  const hasAmount = input.amount !== undefined && input.amount !== null;
  const hasExpression = input.expression !== undefined && input.expression !== null;
  if (hasAmount && hasExpression) {
    throw new DomainError('invalid_request', 'VALIDATION_ERROR', 'Send either amount or expression, not both.', {
      param: 'expression',
      errors: [{ param: 'expression', code: 'MUTUALLY_EXCLUSIVE', message: 'amount and expression are mutually exclusive.' }],
    });
  }
  if (!hasAmount && !hasExpression) {
    if (!required) return null;
    throw invalidParameter('amount', 'REQUIRED', 'A cost needs an amount or an expression.');
  }
  if (hasExpression && (typeof input.expression !== 'string' || input.expression.trim() === '')) {
    throw invalidParameter('expression', 'INVALID_FORMAT', 'expression must be a non-empty formula.');
  }
  return hasAmount ? { amount: input.amount! } : { expression: input.expression!.trim() };
}

function displayOf(input: CostInput): CostDisplay {
  return {
    description: input.description || null,
    metadata: input.metadata ?? {},
    translations: input.translations ?? {},
    requiresContinuousCoverage: false,
  };
}

/** The ORG cost of this id, or the product owning this PRODUCT cost, loaded for a command; 404 otherwise. */
async function loadCostOwner(
  actor: Actor,
  costId: string,
  orgCosts: OrgCostRepository,
  products: ProductRepository,
  releases: ProductReleases,
): Promise<{ org: OrgCost } | { product: Product }> {
  const org = await orgCosts.lock(actor, costId);
  if (org) return { org };
  const productId = await products.ownerOfCost(actor, costId);
  const product = productId && (await releases.load(actor, productId));
  if (!product || !product.cost(costId)) throw catalogNotFound(undefined, 'cost');
  return { product };
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
      throw new DomainError('conflict', 'ALREADY_EXISTS', `An active ORG cost already has the key "${key}".`, { param: 'key' });
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

/** The content a staging edit will change: the open draft's, else the head's (a draft opens on it). */
export function workingContent(product: Product) {
  const draft = product.line.draft;
  const head = product.line.head;
  return (
    (draft && product.contentOf(draft.id)) ??
    (head && product.contentOf(head.id)) ?? { priceExpression: null, entries: [], notBefore: null }
  );
}

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
      throw catalogInvalid(
        'DRAFT_NOT_SUPPORTED',
        'A cost has no draft of its own: its value is versioned through the product or the ORG revision.',
        {
          param: 'save_as_draft',
        },
      );
    }
    const given = valueInput(input, false);
    const controls = input.effectiveAt != null || input.saveAsDraft != null;
    if (!given && controls) {
      throw catalogInvalid(
        'PUBLISH_CONTROLS_NOT_ALLOWED',
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
        throw new DomainError(
          'conflict',
          'COST_KEY_NOT_IN_HEAD',
          `Another active ORG cost holds the key "${owner.org.snapshot.key}".`,
        );
      }
    } else {
      owner.product.restoreCost(costId, now, createdByOf(actor));
      await this.products.save(owner.product);
    }
    await this.audit.record(actor, { action: 'cost.restored', resourceType: 'cost', resourceId: costId });
    return costId;
  }
}
