import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { Actor } from '@app/shared-kernel';
import { PlanVersionRow } from '../application/plans/plan-reads';
import { PlanVersionFilters, PlanVersionReads } from '../application/plans/plan-version-reads';
import { planDetailColumns } from '../domain/plan-details';
import { VERSION_COLUMNS } from './version-rows';

/** Its subqueries name the organization and workspace by the caller's $1 and $2: Citus routes a correlated one to one shard only so. */
const PLAN_VERSION_SELECT = `
  SELECT ${VERSION_COLUMNS.map((column) => `v.${column}`).join(', ')}, v.plan_id, ${planDetailColumns('v').join(', ')},
         v.price_cadence_unit,
         CASE WHEN v.status = 'scheduled' THEN (SELECT count(*) FROM plan_versions q WHERE q.organization_id = $1
           AND q.workspace_id = $2 AND q.plan_id = v.plan_id AND q.status = 'scheduled' AND q.scheduled_for <= v.scheduled_for) END AS rank
    FROM plan_versions v`;

/** Referrers of a version: subscriptions on it (any status) and changes naming it. */
const USAGE_COUNT = `(SELECT count(*) FROM subscriptions s WHERE s.organization_id = $1 AND s.workspace_id = $2
    AND s.plan_version_id = v.id) + (SELECT count(*) FROM changes c WHERE c.organization_id = $1
    AND c.workspace_id = $2 AND (c.staged_version_id = v.id OR c.result_version_id = v.id)) AS usage_count`;

@Injectable()
export class TypeOrmPlanVersionReads extends PlanVersionReads {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async findByNumber(actor: Actor, planId: string, version: number): Promise<PlanVersionRow | undefined> {
    const [row]: PlanVersionRow[] = await this.txHost.tx.query(
      `${PLAN_VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.version = $4`,
      [actor.organizationId, actor.workspaceId, planId, version],
    );
    return row;
  }

  list(
    actor: Actor,
    planId: string,
    filters: PlanVersionFilters,
    after: unknown[] | undefined,
    limit: number,
  ): Promise<PlanVersionRow[]> {
    return this.txHost.tx.query(
      `SELECT * FROM (${PLAN_VERSION_SELECT.replace('FROM plan_versions v', `${filters.includeUsageCount ? `, ${USAGE_COUNT}` : ''} FROM plan_versions v`)}
         WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.status = ANY($4::text[])
           AND ($5::text IS NULL OR v.archived_reason = $5) AND ($6::int IS NULL OR v.version < $6)
         ORDER BY v.version DESC LIMIT $7) page`,
      [actor.organizationId, actor.workspaceId, planId, filters.statuses, filters.archivedReason, after?.[0] ?? null, limit],
    );
  }

  draftWithBase(actor: Actor, draftVersionId: string): Promise<PlanVersionRow[]> {
    return this.txHost.tx.query(
      `${PLAN_VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND (v.id = $3
         OR v.id = (SELECT base_version_id FROM plan_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3))`,
      [actor.organizationId, actor.workspaceId, draftVersionId],
    );
  }
}
