import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ProductRepository } from '../../domain/repositories';
import { OpenProductDraftCommand } from './open-product-draft.command';
import { createdByOf } from '../created-by';
import { ProductReleases } from '../product-releases';

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
