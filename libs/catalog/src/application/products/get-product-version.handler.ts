import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { GetProductVersionQuery } from './get-product-version.query';
import { ProductVersionView } from './product.views';
import { versionView } from './product-reads';
import { ProductVersionReads } from './product-version-reads';

@QueryHandler(GetProductVersionQuery)
export class GetProductVersionHandler implements IQueryHandler<GetProductVersionQuery> {
  constructor(private readonly versions: ProductVersionReads) {}

  async execute({ actor, versionId }: GetProductVersionQuery): Promise<ProductVersionView> {
    const row = isUuid(versionId) ? await this.versions.find(actor, versionId) : undefined;
    if (!row) throw catalogNotFound(undefined, 'version');
    return versionView(row);
  }
}
