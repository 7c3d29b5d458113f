import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { preparedQuery } from '@app/shared-kernel';
import { VersionUsageView, GetVersionUsageQuery } from './get-version-usage.query';
import { versionOf, REFERRER_SOURCES } from './plan-insights';

@QueryHandler(GetVersionUsageQuery)
export class GetVersionUsageHandler implements IQueryHandler<GetVersionUsageQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** The counts of the referrers list, by type; a version row's `usage_count` is their sum. */
  async execute({ actor, planId, version }: GetVersionUsageQuery): Promise<VersionUsageView> {
    const row = await versionOf(this.txHost, actor, planId, version);
    const [counts] = await preparedQuery<{ subscription: number; change: number }>(
      this.txHost.tx,
      `SELECT (SELECT count(*) FROM (${REFERRER_SOURCES.subscription}) s)::int AS subscription,
              (SELECT count(*) FROM (${REFERRER_SOURCES.change}) c)::int AS change`,
      [actor.organizationId, actor.workspaceId, row.id],
    );
    return { referrer_counts: { subscription: counts.subscription, change: counts.change } };
  }
}
