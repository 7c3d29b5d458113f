import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { preparedQuery } from '@app/shared-kernel';
import { PublishImpactView, GetPlanPublishImpactQuery } from './get-plan-publish-impact.query';
import { assertPlan } from './plan-insights';

@QueryHandler(GetPlanPublishImpactQuery)
export class GetPlanPublishImpactHandler implements IQueryHandler<GetPlanPublishImpactQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /**
   * ACTIVE subscriptions only: one that tracks latest (plan_track_mode latest and no product pin)
   * would move; one holding a pin (pinned mode or any product pin) would not.
   */
  async execute({ actor, planId }: GetPlanPublishImpactQuery): Promise<PublishImpactView> {
    await assertPlan(this.txHost, actor, planId);
    const [row] = await preparedQuery<{ would_migrate: number; pinned: number; immediate: number; next_period: number }>(
      this.txHost.tx,
      `SELECT count(*) FILTER (WHERE tracks_latest)::int AS would_migrate, count(*) FILTER (WHERE NOT tracks_latest)::int AS pinned,
              count(*) FILTER (WHERE tracks_latest AND version_change_strategy = 'immediate')::int AS immediate,
              count(*) FILTER (WHERE tracks_latest AND version_change_strategy = 'next_period')::int AS next_period
         FROM (SELECT s.version_change_strategy,
                      s.plan_track_mode = 'latest' AND NOT EXISTS (SELECT 1 FROM subscription_product_pins p
                        WHERE p.organization_id = s.organization_id AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id) AS tracks_latest
                 FROM subscriptions s
                WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.plan_id = $3 AND s.status = 'active') active`,
      [actor.organizationId, actor.workspaceId, planId],
    );
    return {
      would_migrate: row.would_migrate,
      pinned: row.pinned,
      movers_by_strategy: { immediate: row.immediate, next_period: row.next_period },
    };
  }
}
