import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition, Page, preparedQuery } from '@app/shared-kernel';
import { ListSubscriptionsQuery } from './list-subscriptions.query';
import { SubscriptionView } from './subscription.view';
import { SubscriptionRow, SUBSCRIPTION_COLUMNS, VERSION_JOIN, subscriptionView } from './subscription-reads';

/** Newest first; plan_id, customer_id and status filter with their own indexes. */
@QueryHandler(ListSubscriptionsQuery)
export class ListSubscriptionsHandler implements IQueryHandler<ListSubscriptionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, filters, limit, cursor }: ListSubscriptionsQuery): Promise<Page<SubscriptionView>> {
    const page = await keysetPage<SubscriptionRow>(
      this.cursors,
      {
        list: 'subscriptions',
        filters: { plan_id: filters.planId ?? null, customer_id: filters.customerId ?? null, status: filters.status ?? null },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) => {
        // Only the filters given, each its own statement: every combination is planned on its index
        // (plan_id, customer_id, or the workspace's newest-first one), first page or deep.
        const values: unknown[] = [actor.organizationId, actor.workspaceId];
        const where = ['s.organization_id = $1', 's.workspace_id = $2'];
        const add = (column: string, value: unknown, cast: string) => {
          values.push(value);
          where.push(`s.${column} = $${values.length}::${cast}`);
        };
        if (filters.planId) add('plan_id', filters.planId, 'uuid');
        if (filters.customerId) add('customer_id', filters.customerId, 'uuid');
        if (filters.status) add('status', filters.status, 'text');
        if (after) {
          values.push(after[0], after[1]);
          where.push(`(s.created_at, s.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
        }
        values.push(rows);
        return preparedQuery<SubscriptionRow>(
          this.txHost.tx,
          `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s ${VERSION_JOIN}
            WHERE ${where.join(' AND ')}
            ORDER BY s.created_at DESC, s.id DESC LIMIT $${values.length}`,
          values,
        );
      },
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(subscriptionView) };
  }
}
