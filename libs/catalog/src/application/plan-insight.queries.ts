import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import {
  Actor,
  CursorCodec,
  DomainError,
  invalidParameter,
  isUuid,
  Page,
  parseLimit,
  preparedQuery,
  toPage,
} from '@app/shared-kernel';
import { catalogNotFound } from '../domain/catalog-errors';

export interface PublishImpactView {
  would_migrate: number;
  pinned: number;
  movers_by_strategy: { immediate: number; next_period: number };
}

export interface SupersedeForecastView {
  pinnable: boolean;
  republishes_consumers: boolean;
  live_readers: number;
}

export const REFERRER_TYPES = ['subscription', 'change'] as const;
export type ReferrerType = (typeof REFERRER_TYPES)[number];

export interface VersionReferrerView {
  referrer_type: ReferrerType;
  referrer_id: string;
  created_at: Date;
}

export interface VersionUsageView {
  referrer_counts: Record<ReferrerType, number>;
}

/** Model §4.9: what a publish of this plan would move (no draft needed). */
export class GetPlanPublishImpactQuery extends Query<PublishImpactView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}

export class GetSupersedeForecastQuery extends Query<SupersedeForecastView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
  ) {
    super();
  }
}

export class ListVersionReferrersQuery extends Query<Page<VersionReferrerView>> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
    readonly type: string | undefined,
    readonly limit: unknown,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export class GetVersionUsageQuery extends Query<VersionUsageView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
  ) {
    super();
  }
}

type Tx = TransactionHost<TransactionalAdapterTypeOrm>;

/** The plan of this workspace (not deleted), else 404. */
async function assertPlan(txHost: Tx, actor: Actor, planId: string): Promise<void> {
  const [row] = isUuid(planId)
    ? await preparedQuery(
        txHost.tx,
        `SELECT 1 FROM plans WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND deleted_at IS NULL`,
        [actor.organizationId, actor.workspaceId, planId],
      )
    : [];
  if (!row) throw catalogNotFound(undefined, 'plan');
}

/** Version n of a plan of this workspace: its id and whether it ever went live; 404 for the plan or the version. */
async function versionOf(txHost: Tx, actor: Actor, planId: string, version: number): Promise<{ id: string; went_live: boolean }> {
  await assertPlan(txHost, actor, planId);
  const [row] = await preparedQuery<{ id: string; went_live: boolean }>(
    txHost.tx,
    `SELECT id, effective_from IS NOT NULL AS went_live FROM plan_versions
      WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3 AND version = $4`,
    [actor.organizationId, actor.workspaceId, planId, version],
  );
  if (!row) throw catalogNotFound('version', 'version');
  return row;
}

/** Subscriptions on a version (any status), and changes that staged or produced it. */
const REFERRER_SOURCES: Record<ReferrerType, string> = {
  subscription: `SELECT 'subscription' AS referrer_type, s.id AS referrer_id, s.created_at FROM subscriptions s
                  WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.plan_version_id = $3`,
  change: `SELECT 'change' AS referrer_type, c.id AS referrer_id, c.created_at FROM changes c
            WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.subject_kind = 'plan'
              AND (c.staged_version_id = $3 OR c.result_version_id = $3)`,
};

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

@QueryHandler(ListVersionReferrersQuery)
export class ListVersionReferrersHandler implements IQueryHandler<ListVersionReferrersQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  /**
   * Newest first, OFFSET-paginated (the spec's one offset list): the signed cursor holds the
   * offset and is bound to the plan, the version and the type.
   */
  async execute({ actor, planId, version, type, limit, cursor }: ListVersionReferrersQuery): Promise<Page<VersionReferrerView>> {
    if (type === undefined) throw invalidParameter('type', 'REQUIRED', `type is required: one of ${REFERRER_TYPES.join(', ')}.`);
    if (!(REFERRER_TYPES as readonly string[]).includes(type)) {
      throw invalidParameter('type', 'INVALID_VALUE', `type must be one of ${REFERRER_TYPES.join(', ')}.`);
    }
    const binding = { list: 'plan_version_referrers', filters: { plan_id: planId, version, type }, order: 'created_at:desc' };
    const offset = cursor === undefined ? 0 : offsetOf(this.cursors.decode(cursor, binding));
    const row = await versionOf(this.txHost, actor, planId, version);
    const pageSize = parseLimit(limit);
    const rows = await preparedQuery<VersionReferrerView & { referrer_type: ReferrerType }>(
      this.txHost.tx,
      `${REFERRER_SOURCES[type as ReferrerType]} ORDER BY created_at DESC, referrer_id DESC OFFSET $4 LIMIT $5`,
      [actor.organizationId, actor.workspaceId, row.id, offset, pageSize + 1],
    );
    const page = toPage(rows, pageSize, () => this.cursors.encode(binding, [offset + pageSize]));
    return {
      ...page,
      data: page.data.map((referrer) => ({
        referrer_type: referrer.referrer_type,
        referrer_id: referrer.referrer_id,
        created_at: referrer.created_at,
      })),
    };
  }
}

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

/** A signed offset: a non-negative integer, else the cursor is not one this list issued. */
function offsetOf(position: unknown[]): number {
  const [offset] = position;
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new DomainError('invalid_request', 'INVALID_CURSOR', 'The cursor is invalid or was issued for another list.', {
      param: 'cursor',
    });
  }
  return offset;
}
