import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ListProductVersionsQuery } from './list-product-versions.query';
import { ProductVersionView } from './product.views';
import { VERSION_SELECT, VersionReadRow, versionView, assertProduct } from './product-reads';

@QueryHandler(ListProductVersionsQuery)
export class ListProductVersionsHandler implements IQueryHandler<ListProductVersionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, productId, limit, cursor }: ListProductVersionsQuery): Promise<Page<ProductVersionView>> {
    await assertProduct(this.txHost.tx, actor, productId);
    const page = await keysetPage<VersionReadRow>(
      this.cursors,
      { list: 'product_versions', filters: { product_id: productId }, order: 'version:desc' },
      { limit, cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.product_id = $3
              AND ($4::int IS NULL OR v.version < $4) ORDER BY v.version DESC LIMIT $5`,
          [actor.organizationId, actor.workspaceId, productId, after?.[0] ?? null, rows],
        ),
      (row) => [row.version],
    );
    return { ...page, data: page.data.map(versionView) };
  }
}
