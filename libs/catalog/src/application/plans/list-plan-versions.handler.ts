import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, Page, parseLimit } from '@app/shared-kernel';
import { memberships, PlanVersionView } from './plan-views';
import { ListPlanVersionsQuery } from './list-plan-versions.query';
import { PlanVersionRow, PLAN_VERSION_SELECT, planVersionView, planRow } from './plan-reads';

/** Referrers of a version: subscriptions on it (any status) and changes naming it. */
const USAGE_COUNT = `(SELECT count(*) FROM subscriptions s WHERE s.organization_id = $1 AND s.workspace_id = $2
    AND s.plan_version_id = v.id) + (SELECT count(*) FROM changes c WHERE c.organization_id = $1
    AND c.workspace_id = $2 AND (c.staged_version_id = v.id OR c.result_version_id = v.id)) AS usage_count`;

@QueryHandler(ListPlanVersionsQuery)
export class ListPlanVersionsHandler implements IQueryHandler<ListPlanVersionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  /** Keyset by version, newest first; default statuses: all but draft; limit default 100, max 200. */
  async execute({ actor, planId, filters, limit, cursor }: ListPlanVersionsQuery): Promise<Page<PlanVersionView>> {
    await planRow(this.txHost, actor, planId);
    const statuses = filters.statuses ?? ['scheduled', 'published', 'archived'];
    const page = await keysetPage<PlanVersionRow>(
      this.cursors,
      {
        list: 'plan_versions',
        filters: {
          plan_id: planId,
          status: [...statuses].sort(),
          archived_reason: filters.archivedReason ?? null,
          usage: filters.includeUsageCount,
        },
        order: 'version:desc',
      },
      { limit: parseLimit(limit, { default: 100, max: 200 }), cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `SELECT * FROM (${PLAN_VERSION_SELECT.replace('FROM plan_versions v', `${filters.includeUsageCount ? `, ${USAGE_COUNT}` : ''} FROM plan_versions v`)}
             WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.status = ANY($4::text[])
               AND ($5::text IS NULL OR v.archived_reason = $5) AND ($6::int IS NULL OR v.version < $6)
             ORDER BY v.version DESC LIMIT $7) page`,
          [actor.organizationId, actor.workspaceId, planId, statuses, filters.archivedReason ?? null, after?.[0] ?? null, rows],
        ),
      (row) => [row.version],
    );
    const byVersion = await memberships(
      this.txHost,
      actor,
      page.data.map((row) => row.id),
    );
    return { ...page, data: page.data.map((row) => planVersionView(row, byVersion.get(row.id) ?? [])) };
  }
}
