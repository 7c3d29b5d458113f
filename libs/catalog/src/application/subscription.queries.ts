import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, isUuid, keysetPage, newestFirstPosition, Page, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../domain/catalog-errors';
import { OutcomeStatus, SKIP_REASONS, SkipReason } from '../domain/plan-migration';
import {
  GetMigrationQuery,
  GetSubscriptionQuery,
  GetSubscriptionsQuery,
  ListMigrationOutcomesQuery,
  ListSubscriptionsQuery,
  MigrationOutcomeView,
  MigrationView,
  SubscriptionView,
} from './subscription.commands';

interface SubscriptionRow {
  id: string;
  customer_id: string;
  plan_id: string;
  plan_version_id: string;
  plan_version: number;
  status: 'active' | 'canceled';
  billing_cadence: string;
  plan_track_mode: string;
  version_change_strategy: string;
  current_period_start: Date;
  current_period_end: Date;
  created_at: Date;
  updated_at: Date;
  canceled_at: Date | null;
  pins: { product_id: string; product_version_id: string }[];
}

/**
 * The columns of a subscription read, its pins aggregated. The pins name the organization by the
 * statement's parameter ($1, as every statement using these columns binds it): Citus routes the
 * correlated lookup to the organization's shard only so, and would read every shard otherwise.
 */
const SUBSCRIPTION_COLUMNS = `s.id, s.customer_id, s.plan_id, s.plan_version_id, v.version AS plan_version, s.status, s.billing_cadence, s.plan_track_mode,
  s.version_change_strategy, s.current_period_start, s.current_period_end, s.created_at, s.updated_at, s.canceled_at,
  coalesce((SELECT jsonb_agg(jsonb_build_object('product_id', p.product_id, 'product_version_id', p.product_version_id) ORDER BY p.product_id)
              FROM subscription_product_pins p
             WHERE p.organization_id = $1 AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id), '[]') AS pins`;
const VERSION_JOIN = `JOIN plan_versions v ON v.organization_id = s.organization_id AND v.workspace_id = s.workspace_id AND v.id = s.plan_version_id`;

function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    object: 'subscription',
    id: row.id,
    customer_id: row.customer_id,
    plan_id: row.plan_id,
    plan_version: { id: row.plan_version_id, version: row.plan_version },
    status: row.status,
    billing_cadence: row.billing_cadence,
    plan_track_mode: row.plan_track_mode,
    version_change_strategy: row.version_change_strategy,
    product_pins: row.pins,
    holds_pin: row.plan_track_mode === 'pinned' || row.pins.length > 0,
    current_period_start: row.current_period_start,
    current_period_end: row.current_period_end,
    created_at: row.created_at,
    updated_at: row.updated_at,
    canceled_at: row.canceled_at,
  };
}

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

@QueryHandler(GetSubscriptionsQuery)
export class GetSubscriptionsHandler implements IQueryHandler<GetSubscriptionsQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** In id order; an id of no subscription of the workspace is left out. */
  async execute({ actor, subscriptionIds }: GetSubscriptionsQuery): Promise<SubscriptionView[]> {
    const ids = subscriptionIds.filter(isUuid);
    if (ids.length === 0) return [];
    const rows = await preparedQuery<SubscriptionRow>(
      this.txHost.tx,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s ${VERSION_JOIN}
        WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.id = ANY($3::uuid[]) ORDER BY s.id`,
      [actor.organizationId, actor.workspaceId, ids],
    );
    return rows.map(subscriptionView);
  }
}

/** Newest first; plan_id, customer_id and status filter with their own indexes. */
@QueryHandler(ListSubscriptionsQuery)
export class ListSubscriptionsHandler implements IQueryHandler<ListSubscriptionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, filters, limit, cursor }: ListSubscriptionsQuery): Promise<Page<SubscriptionView>> {
    const page = await keysetPage<SubscriptionRow>(
      this.cursors,
      {
        list: 'subscriptions',
        filters: { plan_id: filters.planId ?? null, customer_id: filters.customerId ?? null, status: filters.status ?? null },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) => {
        // Only the filters given, each its own statement: every combination is planned on its index
        // (plan_id, customer_id, or the workspace's newest-first one), first page or deep.
        const values: unknown[] = [actor.organizationId, actor.workspaceId];
        const where = ['s.organization_id = $1', 's.workspace_id = $2'];
        const add = (column: string, value: unknown, cast: string) => {
          values.push(value);
          where.push(`s.${column} = $${values.length}::${cast}`);
        };
        if (filters.planId) add('plan_id', filters.planId, 'uuid');
        if (filters.customerId) add('customer_id', filters.customerId, 'uuid');
        if (filters.status) add('status', filters.status, 'text');
        if (after) {
          values.push(after[0], after[1]);
          where.push(`(s.created_at, s.id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
        }
        values.push(rows);
        return preparedQuery<SubscriptionRow>(
          this.txHost.tx,
          `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s ${VERSION_JOIN}
            WHERE ${where.join(' AND ')}
            ORDER BY s.created_at DESC, s.id DESC LIMIT $${values.length}`,
          values,
        );
      },
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(subscriptionView) };
  }
}

interface MigrationRow {
  id: string;
  plan_id: string;
  trigger: 'manual' | 'publish';
  mode: 'IMMEDIATE' | 'SCHEDULED';
  target_version_id: string;
  target_version: number;
  proration_strategy: string;
  scheduled_at: Date | null;
  status: string;
  created_by: { type: string; id: string };
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  canceled_at: Date | null;
}

@QueryHandler(GetMigrationQuery)
export class GetMigrationHandler implements IQueryHandler<GetMigrationQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, migrationId }: GetMigrationQuery): Promise<MigrationView> {
    const params = [actor.organizationId, actor.workspaceId, migrationId];
    const [row] = isUuid(migrationId)
      ? await preparedQuery<MigrationRow>(
          this.txHost.tx,
          `SELECT id, plan_id, trigger, mode, target_version_id, target_version, proration_strategy, scheduled_at, status, created_by, created_at,
                  started_at, completed_at, canceled_at
             FROM plan_migrations WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          params,
        )
      : [];
    if (!row) throw catalogNotFound(undefined, 'migration');
    const groups = await preparedQuery<{ status: OutcomeStatus; reason: SkipReason | null; n: number }>(
      this.txHost.tx,
      `SELECT status, reason, count(*)::int AS n FROM plan_migration_outcomes
        WHERE organization_id = $1 AND workspace_id = $2 AND migration_id = $3 GROUP BY status, reason`,
      params,
    );
    const counts = { total: 0, pending: 0, moved: 0, skipped: 0, failed: 0 };
    const skippedByReason = Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<SkipReason, number>;
    for (const group of groups) {
      counts.total += group.n;
      counts[group.status] += group.n;
      if (group.status === 'skipped' && group.reason) skippedByReason[group.reason] += group.n;
    }
    return {
      object: 'migration',
      id: row.id,
      plan_id: row.plan_id,
      trigger: row.trigger,
      mode: row.mode,
      target_version: { id: row.target_version_id, version: row.target_version },
      proration_strategy: row.proration_strategy,
      scheduled_at: row.scheduled_at,
      status: row.status,
      counts,
      skipped_by_reason: skippedByReason,
      created_by: row.created_by,
      created_at: row.created_at,
      started_at: row.started_at,
      completed_at: row.completed_at,
      canceled_at: row.canceled_at,
    };
  }
}

/** By subscription id, optionally of one status; each outcome with its versions resolved to numbers. */
@QueryHandler(ListMigrationOutcomesQuery)
export class ListMigrationOutcomesHandler implements IQueryHandler<ListMigrationOutcomesQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, migrationId, status, limit, cursor }: ListMigrationOutcomesQuery): Promise<Page<MigrationOutcomeView>> {
    const [migration] = isUuid(migrationId)
      ? await preparedQuery(
          this.txHost.tx,
          `SELECT 1 FROM plan_migrations WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, migrationId],
        )
      : [];
    if (!migration) throw catalogNotFound(undefined, 'migration');
    type OutcomeRow = {
      subscription_id: string;
      status: OutcomeStatus;
      reason: string | null;
      from_version_id: string;
      from_version: number;
      to_version_id: string;
      to_version: number;
      effective_at: Date | null;
      proration_strategy: string;
      processed_at: Date | null;
    };
    const page = await keysetPage<OutcomeRow>(
      this.cursors,
      {
        list: 'migration_outcomes',
        filters: { migration_id: migrationId, status: status ?? null },
        order: 'subscription_id:asc',
      },
      { limit, cursor },
      (after, rows) =>
        preparedQuery<OutcomeRow>(
          this.txHost.tx,
          `SELECT o.subscription_id, o.status, o.reason, o.from_version_id, fv.version AS from_version, o.to_version_id, tv.version AS to_version,
                  o.effective_at, o.proration_strategy, o.processed_at
             FROM plan_migration_outcomes o
             JOIN plan_versions fv ON fv.organization_id = o.organization_id AND fv.workspace_id = o.workspace_id AND fv.id = o.from_version_id
             JOIN plan_versions tv ON tv.organization_id = o.organization_id AND tv.workspace_id = o.workspace_id AND tv.id = o.to_version_id
            WHERE o.organization_id = $1 AND o.workspace_id = $2 AND o.migration_id = $3 AND ($4::text IS NULL OR o.status = $4)
              AND ($5::uuid IS NULL OR o.subscription_id > $5)
            ORDER BY o.subscription_id LIMIT $6`,
          [actor.organizationId, actor.workspaceId, migrationId, status ?? null, after?.[0] ?? null, rows],
        ),
      (row) => [row.subscription_id],
    );
    return {
      ...page,
      data: page.data.map((row) => ({
        object: 'migration_outcome',
        migration_id: migrationId,
        subscription_id: row.subscription_id,
        status: row.status,
        reason: row.reason,
        from_version: { id: row.from_version_id, version: row.from_version },
        to_version: { id: row.to_version_id, version: row.to_version },
        effective_at: row.effective_at,
        proration_strategy: row.proration_strategy,
        processed_at: row.processed_at,
      })),
    };
  }
}
