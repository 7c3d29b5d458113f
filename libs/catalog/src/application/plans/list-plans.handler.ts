import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, CursorBinding, CursorCodec, keysetPage, Page, parseLimit } from '@app/shared-kernel';
import {
  parsePlanListQuery,
  PLAN_STATUSES,
  PlanListCriteria,
  planListFingerprint,
  planListOrder,
  PlanStatus,
} from '../../domain/plan-filters';
import { PlanMemberships } from './plan-memberships';
import { planViews, PlanView } from './plan-views';
import { PlanListView, ListPlansQuery } from './list-plans.query';
import { PageRow, Parameters, conditions, planListStatement, positionOf } from './plan-list';

/** Whether anything but the tenant (and the status, which counts leave out) narrows the plans. */
function filtersBeyondTenant(criteria: PlanListCriteria): boolean {
  return (
    criteria.filters.length > 0 || criteria.tags.length > 0 || criteria.hasScheduledVersion !== null || criteria.search !== null
  );
}

@QueryHandler(ListPlansQuery)
export class ListPlansHandler implements IQueryHandler<ListPlansQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
    private readonly memberships: PlanMemberships,
  ) {}

  async execute({ actor, query }: ListPlansQuery): Promise<PlanListView> {
    const { criteria, limit, cursor } = parsePlanListQuery(query);
    // Counts describe the same snapshot as the page.
    if (criteria.counts.length > 0) {
      return this.txHost.withTransaction({ isolationLevel: 'REPEATABLE READ' }, async () => ({
        ...(await this.page(actor, criteria, limit, cursor)),
        counts: { status: await this.statusCounts(actor, criteria) },
      }));
    }
    return this.page(actor, criteria, limit, cursor);
  }

  private async page(
    actor: Actor,
    criteria: PlanListCriteria,
    limit: unknown,
    cursor: string | undefined,
  ): Promise<Page<PlanView>> {
    const binding: CursorBinding = { list: 'plans', filters: planListFingerprint(criteria), order: planListOrder(criteria) };
    const page = await keysetPage<PageRow>(
      this.cursors,
      binding,
      { limit: parseLimit(limit), cursor },
      (after, rows) => {
        const { sql, values } = planListStatement(actor, criteria, after, rows);
        return this.txHost.tx.query(sql, values);
      },
      (row) => positionOf(criteria, row),
    );
    return { ...page, data: await planViews(this.memberships, actor, page.data) };
  }

  /** Plans per status under every filter but status (facets for status tabs), zeros included. */
  private async statusCounts(actor: Actor, criteria: PlanListCriteria): Promise<Record<PlanStatus, number>> {
    const rows: Array<{ status: PlanStatus; count: number }> = filtersBeyondTenant(criteria)
      ? await this.countMatches(actor, criteria)
      : // Without a filter, the counts the database keeps per status (plan_status_counts) answer at once.
        await this.txHost.tx.query(
          `SELECT status, plans::int AS count FROM plan_status_counts WHERE organization_id = $1 AND workspace_id = $2`,
          [actor.organizationId, actor.workspaceId],
        );
    const counts = Object.fromEntries(PLAN_STATUSES.map((status) => [status, 0])) as Record<PlanStatus, number>;
    for (const row of rows) counts[row.status] = row.count;
    return counts;
  }

  private countMatches(actor: Actor, criteria: PlanListCriteria): Promise<Array<{ status: PlanStatus; count: number }>> {
    const params = new Parameters();
    const where = conditions(actor, criteria, params, { status: false });
    return this.txHost.tx.query(
      `SELECT p.status, count(*)::int AS count FROM plans p WHERE ${where.join(' AND ')} GROUP BY p.status`,
      params.values,
    );
  }
}
