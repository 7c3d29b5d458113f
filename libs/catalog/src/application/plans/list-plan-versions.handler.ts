import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, Page, parseLimit } from '@app/shared-kernel';
import { PlanMemberships } from './plan-memberships';
import { PlanVersionView } from './plan-views';
import { ListPlanVersionsQuery } from './list-plan-versions.query';
import { PlanVersionRow, planVersionView, planRow } from './plan-reads';
import { PlanVersionReads } from './plan-version-reads';

@QueryHandler(ListPlanVersionsQuery)
export class ListPlanVersionsHandler implements IQueryHandler<ListPlanVersionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
    private readonly versions: PlanVersionReads,
    private readonly memberships: PlanMemberships,
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
        this.versions.list(
          actor,
          planId,
          { statuses, archivedReason: filters.archivedReason ?? null, includeUsageCount: filters.includeUsageCount },
          after,
          rows,
        ),
      (row) => [row.version],
    );
    const byVersion = await this.memberships.of(
      actor,
      page.data.map((row) => row.id),
    );
    return { ...page, data: page.data.map((row) => planVersionView(row, byVersion.get(row.id) ?? [])) };
  }
}
