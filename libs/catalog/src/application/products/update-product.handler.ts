import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ChangeRepository, ProductRepository } from '../../domain/repositories';
import { ProductInput } from './product-input';
import { UpdateProductCommand } from './update-product.command';
import { cancelChangesOf } from '../canceled-releases';
import { Pricing } from '../pricing';
import { ProductReleases } from '../product-releases';
import { CatalogEvents } from '../catalog-events';
import { GetProductQuery } from './get-product.query';
import { assertName, stagePriceExpression } from './product-writes';

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
