import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ProductRepository } from '../../domain/repositories';
import { DiscardProductDraftCommand } from './discard-product-draft.command';
import { ProductReleases } from '../product-releases';

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
