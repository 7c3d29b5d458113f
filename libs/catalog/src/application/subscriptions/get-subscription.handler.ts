import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { GetSubscriptionQuery } from './get-subscription.query';
import { SubscriptionView } from './subscription.view';
import { SubscriptionRow, SUBSCRIPTION_COLUMNS, VERSION_JOIN, subscriptionView } from './subscription-reads';

@QueryHandler(GetSubscriptionQuery)
export class GetSubscriptionHandler implements IQueryHandler<GetSubscriptionQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, subscriptionId }: GetSubscriptionQuery): Promise<SubscriptionView> {
    const [row] = isUuid(subscriptionId)
      ? await preparedQuery<SubscriptionRow>(
          this.txHost.tx,
          `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s ${VERSION_JOIN} WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.id = $3`,
          [actor.organizationId, actor.workspaceId, subscriptionId],
        )
      : [];
    if (!row) throw catalogNotFound(undefined, 'subscription');
    return subscriptionView(row);
  }
}
