import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { GetProductQuery } from './get-product.query';
import { ProductView } from './product.views';
import { ProductReadRow, PRODUCT_SELECT, productView } from './product-reads';

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, productId }: GetProductQuery): Promise<ProductView> {
    const [row]: ProductReadRow[] = isUuid(productId)
      ? await this.txHost.tx.query(`${PRODUCT_SELECT} WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          productId,
        ])
      : [];
    if (!row) throw catalogNotFound(undefined, 'product');
    return productView(row);
  }
}
