import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { preparedQuery } from '@app/shared-kernel';
import { SupersedeForecastView, GetSupersedeForecastQuery } from './get-supersede-forecast.query';
import { versionOf } from './plan-insights';

@QueryHandler(GetSupersedeForecastQuery)
export class GetSupersedeForecastHandler implements IQueryHandler<GetSupersedeForecastQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Read afresh on every call (uncached): nothing in the catalog resolves a plan version, so no consumer is republished. */
  async execute({ actor, planId, version }: GetSupersedeForecastQuery): Promise<SupersedeForecastView> {
    const row = await versionOf(this.txHost, actor, planId, version);
    const [readers] = await preparedQuery<{ count: number }>(
      this.txHost.tx,
      `SELECT count(*)::int AS count FROM subscriptions WHERE organization_id = $1 AND workspace_id = $2 AND plan_version_id = $3 AND status = 'active'`,
      [actor.organizationId, actor.workspaceId, row.id],
    );
    return { pinnable: row.went_live, republishes_consumers: false, live_readers: readers.count };
  }
}
