import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Actor, CursorCodec, DomainError, isUuid, keysetPage, Page, parseLimit } from '@app/shared-kernel';
import { catalogNotFound } from '../domain/catalog-errors';
import { planDetailColumns, PlanDetailFields, planDetailFields } from '../domain/plan-details';
import { VERSION_COLUMNS, VersionRow } from '../infrastructure/version-rows';
import { VersionLifecycleView } from './catalog.views';
import { memberships, planColumns, PlanMembershipView, PlanRow, planViews, PlanView } from './plan-views';
import { lifecycleView } from './product.queries';

export type { PlanMembershipView, PlanView } from './plan-views';

export interface PlanVersionView extends VersionLifecycleView, PlanDetailFields {
  object: 'plan_version';
  plan_id: string;
  price_cadence_unit: string;
  usage_count?: number;
  products: PlanMembershipView[];
}

export class GetPlanQuery extends Query<PlanView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}

export class GetPlanDraftQuery extends Query<PlanVersionView & { base_version: number | null; head_version: number | null }> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}

export class GetPlanVersionQuery extends Query<PlanVersionView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
  ) {
    super();
  }
}

export const VERSION_STATUSES = ['draft', 'scheduled', 'published', 'archived'] as const;
export const ARCHIVED_REASONS = ['canceled', 'discarded', 'errored', 'superseded'] as const;

export class ListPlanVersionsQuery extends Query<Page<PlanVersionView>> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly filters: { statuses?: string[]; archivedReason?: string; includeUsageCount: boolean },
    readonly limit: unknown,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

type PlanVersionRow = VersionRow &
  PlanDetailFields & {
    plan_id: string;
    price_cadence_unit: string;
    rank: number | null;
    usage_count?: string;
  };

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

function planVersionView(row: PlanVersionRow, products: PlanMembershipView[]): PlanVersionView {
  return {
    object: 'plan_version',
    ...lifecycleView(row),
    plan_id: row.plan_id,
    ...planDetailFields(row),
    price_cadence_unit: row.price_cadence_unit,
    ...(row.usage_count !== undefined ? { usage_count: Number(row.usage_count) } : {}),
    products,
  };
}

async function planRow(txHost: TransactionHost<TransactionalAdapterTypeOrm>, actor: Actor, planId: string): Promise<PlanRow> {
  const [row]: PlanRow[] = isUuid(planId)
    ? await txHost.tx.query(
        `SELECT ${planColumns('$1')} FROM plans p
          WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3 AND p.deleted_at IS NULL`,
        [actor.organizationId, actor.workspaceId, planId],
      )
    : [];
  if (!row) throw catalogNotFound(undefined, 'plan');
  return row;
}

@QueryHandler(GetPlanQuery)
export class GetPlanHandler implements IQueryHandler<GetPlanQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** The working view (model §4.2): live fields, and the draft's content when a draft is open, else the head's. */
  async execute({ actor, planId }: GetPlanQuery): Promise<PlanView> {
    const [view] = await planViews(this.txHost, actor, [await planRow(this.txHost, actor, planId)]);
    return view;
  }
}

@QueryHandler(GetPlanDraftQuery)
export class GetPlanDraftHandler implements IQueryHandler<GetPlanDraftQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, planId }: GetPlanDraftQuery) {
    const plan = await planRow(this.txHost, actor, planId);
    if (!plan.draft_version_id) throw new DomainError('not_found', 'STAGED_DRAFT_NOT_FOUND', 'This plan has no staged draft.');
    const rows: PlanVersionRow[] = await this.txHost.tx.query(
      `${PLAN_VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND (v.id = $3
         OR v.id = (SELECT base_version_id FROM plan_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3))`,
      [actor.organizationId, actor.workspaceId, plan.draft_version_id],
    );
    const draft = rows.find((row) => row.id === plan.draft_version_id)!;
    const base = rows.find((row) => row.id === draft.base_version_id);
    const byVersion = await memberships(
      this.txHost,
      actor,
      rows.map((row) => row.id),
    );
    const after = byVersion.get(draft.id) ?? [];
    const before = base ? (byVersion.get(base.id) ?? []) : [];
    const same = (a: PlanMembershipView, b: PlanMembershipView) =>
      JSON.stringify({ ...a, product_version_id: null, product_version: null }) ===
      JSON.stringify({ ...b, product_version_id: null, product_version: null });
    return {
      ...planVersionView(draft, after),
      opened_at: draft.created_at,
      updated_at: draft.touched_at,
      base_version: base?.version ?? null,
      head_version: plan.head_version_id ? plan.version : null,
      summary: {
        fields_changed: (base?.price_cadence_unit ?? 'month') !== draft.price_cadence_unit ? ['price_cadence_unit'] : [],
        products_added: after.filter((m) => !before.some((b) => b.product_id === m.product_id)).map((m) => m.product_id),
        products_removed: before.filter((b) => !after.some((m) => m.product_id === b.product_id)).map((b) => b.product_id),
        memberships_changed: after
          .filter((m) => {
            const old = before.find((b) => b.product_id === m.product_id);
            return old !== undefined && !same(old, m);
          })
          .map((m) => m.product_id),
      },
    };
  }
}

@QueryHandler(GetPlanVersionQuery)
export class GetPlanVersionHandler implements IQueryHandler<GetPlanVersionQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, planId, version }: GetPlanVersionQuery): Promise<PlanVersionView> {
    await planRow(this.txHost, actor, planId);
    const [row]: PlanVersionRow[] = await this.txHost.tx.query(
      `${PLAN_VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.version = $4`,
      [actor.organizationId, actor.workspaceId, planId, version],
    );
    if (!row) throw catalogNotFound('version', 'version');
    return planVersionView(row, (await memberships(this.txHost, actor, [row.id])).get(row.id) ?? []);
  }
}

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
