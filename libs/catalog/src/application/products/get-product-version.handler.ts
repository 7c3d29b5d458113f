import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { GetProductVersionQuery } from './get-product-version.query';
import { ProductVersionView } from './product.views';
import { VERSION_SELECT, VersionReadRow, versionView } from './product-reads';

@QueryHandler(GetProductVersionQuery)
export class GetProductVersionHandler implements IQueryHandler<GetProductVersionQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, versionId }: GetProductVersionQuery): Promise<ProductVersionView> {
    const [row]: VersionReadRow[] = isUuid(versionId)
      ? await this.txHost.tx.query(`${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          versionId,
        ])
      : [];
    if (!row) throw catalogNotFound(undefined, 'version');
    return versionView(row);
  }
}
