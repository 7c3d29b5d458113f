import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { GetSubscriptionsQuery } from './get-subscriptions.query';
import { SubscriptionView } from './subscription.view';
import { SubscriptionRow, SUBSCRIPTION_COLUMNS, VERSION_JOIN, subscriptionView } from './subscription-reads';

@QueryHandler(GetSubscriptionsQuery)
export class GetSubscriptionsHandler implements IQueryHandler<GetSubscriptionsQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** In id order; an id of no subscription of the workspace is left out. */
  async execute({ actor, subscriptionIds }: GetSubscriptionsQuery): Promise<SubscriptionView[]> {
    const ids = subscriptionIds.filter(isUuid);
    if (ids.length === 0) return [];
    const rows = await preparedQuery<SubscriptionRow>(
      this.txHost.tx,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s ${VERSION_JOIN}
        WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.id = ANY($3::uuid[]) ORDER BY s.id`,
      [actor.organizationId, actor.workspaceId, ids],
    );
    return rows.map(subscriptionView);
  }
}
