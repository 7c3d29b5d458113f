import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, isUuid, keysetPage, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ListCostConsumersQuery, ConsumerView } from './list-cost-consumers.query';
import { CostCascades } from './cost-cascades';

@QueryHandler(ListCostConsumersQuery)
export class ListCostConsumersHandler implements IQueryHandler<ListCostConsumersQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cascades: CostCascades,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, costId, limit, cursor }: ListCostConsumersQuery): Promise<Page<ConsumerView>> {
    const [cost]: { scope: 'ORG' | 'PRODUCT'; product_id: string | null }[] = isUuid(costId)
      ? await this.txHost.tx.query(
          `SELECT scope, product_id FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, costId],
        )
      : [];
    if (!cost) throw catalogNotFound(undefined, 'cost');
    return keysetPage<ConsumerView>(
      this.cursors,
      { list: 'cost_consumers', filters: { cost_id: costId }, order: 'product_id:asc' },
      { limit, cursor },
      (after, rows) =>
        cost.scope === 'PRODUCT'
          ? this.txHost.tx.query(
              `SELECT p.id AS product_id, v.id AS product_version_id, v.version FROM products p
                 LEFT JOIN product_versions v ON v.organization_id = p.organization_id AND v.workspace_id = p.workspace_id AND v.id = p.head_version_id
                WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3 AND ($4::uuid IS NULL OR p.id > $4) LIMIT $5`,
              [actor.organizationId, actor.workspaceId, cost.product_id, after?.[0] ?? null, rows],
            )
          : this.cascades.consumers(actor, costId, { after: (after?.[0] as string | undefined) ?? null, limit: rows }),
      (row) => [row.product_id],
    );
  }
}
