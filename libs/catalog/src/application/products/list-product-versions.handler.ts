import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ListProductVersionsQuery } from './list-product-versions.query';
import { ProductVersionView } from './product.views';
import { VersionReadRow, versionView, assertProduct } from './product-reads';
import { ProductVersionReads } from './product-version-reads';

@QueryHandler(ListProductVersionsQuery)
export class ListProductVersionsHandler implements IQueryHandler<ListProductVersionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
    private readonly versions: ProductVersionReads,
  ) {}

  async execute({ actor, productId, limit, cursor }: ListProductVersionsQuery): Promise<Page<ProductVersionView>> {
    await assertProduct(this.txHost.tx, actor, productId);
    const page = await keysetPage<VersionReadRow>(
      this.cursors,
      { list: 'product_versions', filters: { product_id: productId }, order: 'version:desc' },
      { limit, cursor },
      (after, rows) => this.versions.list(actor, productId, after, rows),
      (row) => [row.version],
    );
    return { ...page, data: page.data.map(versionView) };
  }
}
