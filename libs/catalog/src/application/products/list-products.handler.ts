import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ListProductsQuery } from './list-products.query';
import { ProductView } from './product.views';
import { ProductReadRow, PRODUCT_SELECT, productView } from './product-reads';

@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor }: ListProductsQuery): Promise<Page<ProductView>> {
    const page = await keysetPage<ProductReadRow>(
      this.cursors,
      { list: 'products', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `${PRODUCT_SELECT} WHERE p.organization_id = $1 AND p.workspace_id = $2
              AND ($3::timestamptz IS NULL OR (p.created_at, p.id) < ($3, $4::uuid))
            ORDER BY p.created_at DESC, p.id DESC LIMIT $5`,
          [actor.organizationId, actor.workspaceId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(productView) };
  }
}
