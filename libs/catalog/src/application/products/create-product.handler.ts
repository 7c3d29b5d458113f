import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { Product } from '../../domain/product';
import { ProductRepository } from '../../domain/repositories';
import { CreateProductCommand } from './create-product.command';
import { Pricing } from '../pricing';
import { CatalogEvents } from '../catalog-events';
import { GetProductQuery } from './get-product.query';
import { assertName, stagePriceExpression } from './product-writes';

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
