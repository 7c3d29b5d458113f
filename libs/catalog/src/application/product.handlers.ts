import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, invalidParameter } from '@app/shared-kernel';
import { catalogNotFound } from '../domain/catalog-errors';
import { Product } from '../domain/product';
import { ChangeRepository, ProductRepository } from '../domain/repositories';
import {
  CreateProductCommand,
  DiscardProductDraftCommand,
  OpenProductDraftCommand,
  ProductInput,
  UpdateProductCommand,
} from './catalog.commands';
import { cancelChangesOf } from './canceled-releases';
import { createdByOf, workingContent } from './cost.handlers';
import { Pricing } from './pricing';
import { ProductReleases } from './product-releases';
import { CatalogEvents } from './catalog-events';
import { GetProductQuery } from './catalog.queries';

function assertName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 200) {
    throw invalidParameter('name', 'INVALID_FORMAT', 'name must be 1–200 characters.');
  }
  return name.trim();
}

/** A new price formula is checked in the scope of the content it will join (400/422 FORMULA_*). */
async function stagePriceExpression(pricing: Pricing, actor: Actor, product: Product, expression: string | null, now: Date) {
  const text = expression === null ? null : expression.trim();
  if (text === '')
    throw invalidParameter('price_expression', 'INVALID_FORMAT', 'price_expression must be a formula, or null to clear it.');
  if (text !== null) await pricing.checkProductExpression(actor, workingContent(product), null, text, now);
  product.stagePriceExpression(text, now, createdByOf(actor));
}

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly pricing: Pricing,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: CreateProductCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'product.created', () => this.run(command), {
      after: (id) => new GetProductQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, input }: CreateProductCommand): Promise<string> {
    const now = this.clock.now();
    const product = Product.create({
      ...actor,
      details: { name: assertName(input.name), description: input.description || null, metadata: input.metadata ?? {} },
      now,
    });
    if (input.priceExpression !== undefined && input.priceExpression !== null) {
      await stagePriceExpression(this.pricing, actor, product, input.priceExpression, now);
    }
    await this.products.save(product);
    await this.audit.record(actor, { action: 'product.created', resourceType: 'product', resourceId: product.id });
    return product.id;
  }
}

@CommandHandler(UpdateProductCommand)
export class UpdateProductHandler implements ICommandHandler<UpdateProductCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: ProductReleases,
    private readonly pricing: Pricing,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: UpdateProductCommand): Promise<string> {
    const { actor, productId } = command;
    return this.catalogEvents.around(actor, 'product.updated', () => this.run(command), {
      before: () => new GetProductQuery(actor, productId),
      after: () => new GetProductQuery(actor, productId),
    });
  }

  @Transactional()
  private async run({ actor, productId, input }: UpdateProductCommand): Promise<string> {
    if (input.status !== undefined && input.status !== 'archived') {
      throw invalidParameter(
        'status',
        'INVALID_VALUE',
        'Only "archived" can be set; a product goes live through POST /v1/changes.',
      );
    }
    const product = await this.releases.load(actor, productId);
    if (!product) throw catalogNotFound(undefined, 'product');
    const now = this.clock.now();
    product.updateDetails(detailChanges(input), now);
    if (input.priceExpression !== undefined) await stagePriceExpression(this.pricing, actor, product, input.priceExpression, now);
    if (input.status === 'archived') {
      const canceled = product.archive(now);
      await cancelChangesOf(this.changes, actor, canceled, now);
    }
    await this.products.save(product);
    await this.audit.record(actor, {
      action: input.status === 'archived' ? 'product.archived' : 'product.updated',
      resourceType: 'product',
      resourceId: product.id,
    });
    return product.id;
  }
}

function detailChanges(input: ProductInput) {
  return {
    ...(input.name !== undefined && input.name !== null ? { name: assertName(input.name) } : {}),
    ...(input.description !== undefined && input.description !== null ? { description: input.description || null } : {}),
    ...(input.metadata !== undefined && input.metadata !== null ? { metadata: input.metadata } : {}),
  };
}

@CommandHandler(OpenProductDraftCommand)
export class OpenProductDraftHandler implements ICommandHandler<OpenProductDraftCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, productId, baseVersionId }: OpenProductDraftCommand): Promise<string> {
    const product = await this.releases.load(actor, productId);
    if (!product) throw catalogNotFound(undefined, 'product');
    if (
      baseVersionId !== undefined &&
      !product.line.row(baseVersionId) &&
      !(await this.products.versionExists(actor, productId, baseVersionId))
    ) {
      throw catalogNotFound('base_version_id', 'version');
    }
    const draft = product.openDraft({ baseVersionId, now: this.clock.now(), createdBy: createdByOf(actor) });
    await this.products.save(product);
    await this.audit.record(actor, {
      action: 'product.draft_opened',
      resourceType: 'product',
      resourceId: product.id,
      data: { version_id: draft.id },
    });
    return draft.id;
  }
}

@CommandHandler(DiscardProductDraftCommand)
export class DiscardProductDraftHandler implements ICommandHandler<DiscardProductDraftCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, productId }: DiscardProductDraftCommand): Promise<void> {
    const product = await this.releases.load(actor, productId);
    if (!product) throw catalogNotFound(undefined, 'product');
    const draft = product.discardDraft(this.clock.now());
    await this.products.save(product);
    await this.audit.record(actor, {
      action: 'product.draft_discarded',
      resourceType: 'product',
      resourceId: product.id,
      data: { version_id: draft.id },
    });
  }
}
