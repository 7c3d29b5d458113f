import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, newId, preparedQuery } from '@app/shared-kernel';
import { PriceCadenceUnit } from '../domain/plan';
import {
  MigrationStatus,
  PlanMigration,
  PlanMigrationState,
  ProrationStrategy,
  SKIP_REASONS,
  SkipReason,
} from '../domain/plan-migration';
import type { TenantKey } from '../domain/repositories';
import { CatalogEvents } from '../application/catalog-events';
import { GetMigrationQuery } from '../application/plan-migrations/get-migration.query';
import {
  BatchPosition,
  MigrationScope,
  MigrationTarget,
  MovedSubscription,
  PlanMigrationRepository,
} from '../domain/subscriber-ports';

/** Before every outcome (each is effective at a go-live or a migration's instant, all after 1970): a run's first batch starts here. */
const START: BatchPosition = { effectiveAt: new Date(0), subscriptionId: '00000000-0000-0000-0000-000000000000' };
import { CreatedBy } from '../domain/version-line';

interface MigrationRow {
  id: string;
  plan_id: string;
  trigger: PlanMigrationState['trigger'];
  mode: PlanMigrationState['mode'];
  target_version_id: string;
  target_version: number;
  proration_strategy: ProrationStrategy;
  scheduled_at: Date | null;
  status: MigrationStatus;
  created_by: CreatedBy;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  canceled_at: Date | null;
}

function toMigration(tenant: TenantKey, row: MigrationRow): PlanMigration {
  return PlanMigration.restore({
    organizationId: tenant.organizationId,
    workspaceId: tenant.workspaceId,
    id: row.id,
    planId: row.plan_id,
    trigger: row.trigger,
    mode: row.mode,
    targetVersionId: row.target_version_id,
    targetVersion: row.target_version,
    prorationStrategy: row.proration_strategy,
    scheduledAt: row.scheduled_at,
    status: row.status,
    createdBy: row.created_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    canceledAt: row.canceled_at,
  });
}

/** `s` holds a product pin whose product is not on the target version (`$target` names it). */
function pinNotIn(target: string): string {
  // The organization by its parameter ($1 in every statement here): Citus routes (and lets lock) a
  // statement with correlated lookups to one shard only so.
  return `EXISTS (SELECT 1 FROM subscription_product_pins p
                   WHERE p.organization_id = $1 AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id
                     AND NOT EXISTS (SELECT 1 FROM plan_version_products m
                                      WHERE m.organization_id = $1 AND m.workspace_id = p.workspace_id
                                        AND m.plan_version_id = ${target} AND m.product_id = p.product_id))`;
}

/** The plan's subscriptions a manual migration covers: ACTIVE and not on the target, pinned ones included. */
const MANUAL_SCOPE = `s.organization_id = $1 AND s.workspace_id = $2 AND s.plan_id = $3 AND s.status = 'active' AND s.plan_version_id <> $4`;

@Injectable()
export class TypeOrmPlanMigrationRepository extends PlanMigrationRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly events: CatalogEvents,
  ) {
    super();
  }

  async lock(tenant: TenantKey, migrationId: string): Promise<PlanMigration | undefined> {
    if (!isUuid(migrationId)) return undefined;
    const [row] = await this.query<MigrationRow>(
      `SELECT id, plan_id, trigger, mode, target_version_id, target_version, proration_strategy, scheduled_at, status, created_by, created_at,
              started_at, completed_at, canceled_at
         FROM plan_migrations WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`,
      [tenant.organizationId, tenant.workspaceId, migrationId],
    );
    return row && toMigration(tenant, row);
  }

  async save(migration: PlanMigration): Promise<void> {
    const m = migration.snapshot;
    await this.query(
      `INSERT INTO plan_migrations (organization_id, workspace_id, id, plan_id, trigger, mode, target_version_id, target_version, proration_strategy,
         scheduled_at, status, created_by, created_at, started_at, completed_at, canceled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET status = EXCLUDED.status, started_at = EXCLUDED.started_at,
         completed_at = EXCLUDED.completed_at, canceled_at = EXCLUDED.canceled_at`,
      [
        m.organizationId,
        m.workspaceId,
        m.id,
        m.planId,
        m.trigger,
        m.mode,
        m.targetVersionId,
        m.targetVersion,
        m.prorationStrategy,
        m.scheduledAt,
        m.status,
        JSON.stringify(m.createdBy),
        m.createdAt,
        m.startedAt,
        m.completedAt,
        m.canceledAt,
      ],
    );
  }

  async publishMigrationOf(tenant: TenantKey, versionId: string): Promise<string | undefined> {
    const [row] = await this.query<{ id: string }>(
      `SELECT id FROM plan_migrations WHERE organization_id = $1 AND workspace_id = $2 AND target_version_id = $3 AND trigger = 'publish'`,
      [tenant.organizationId, tenant.workspaceId, versionId],
    );
    return row?.id;
  }

  async scope(tenant: TenantKey, planId: string, target: MigrationTarget): Promise<MigrationScope> {
    const [row] = await this.query<{ affected: number; cadence: number; pin: number }>(
      `SELECT count(*)::int AS affected,
              count(*) FILTER (WHERE s.billing_cadence <> $5)::int AS cadence,
              count(*) FILTER (WHERE s.billing_cadence = $5 AND ${pinNotIn('$4')})::int AS pin
         FROM subscriptions s WHERE ${MANUAL_SCOPE}`,
      [tenant.organizationId, tenant.workspaceId, planId, target.id, target.priceCadenceUnit],
    );
    const skippedByReason = Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<SkipReason, number>;
    skippedByReason.CADENCE_MISMATCH = row.cadence;
    skippedByReason.PIN_NOT_IN_TARGET = row.pin;
    return { affected: row.affected, skippedByReason };
  }

  async buildOutcomes(migration: PlanMigration, target: MigrationTarget): Promise<number> {
    const m = migration.snapshot;
    const [row] = await this.query<{ n: number }>(
      `WITH built AS (
         INSERT INTO plan_migration_outcomes (organization_id, workspace_id, migration_id, subscription_id, status, from_version_id, to_version_id,
           effective_at, proration_strategy)
         SELECT s.organization_id, s.workspace_id, $5, s.id, 'pending', s.plan_version_id, $4, $6, $7
           FROM subscriptions s WHERE ${MANUAL_SCOPE}
         RETURNING 1)
       SELECT count(*)::int AS n FROM built`,
      [m.organizationId, m.workspaceId, m.planId, target.id, m.id, migration.effectiveAt, m.prorationStrategy],
    );
    return row.n;
  }

  async buildPublishOutcomes(migration: PlanMigration, at: Date): Promise<number> {
    const m = migration.snapshot;
    const [row] = await this.query<{ n: number }>(
      `WITH built AS (
         INSERT INTO plan_migration_outcomes (organization_id, workspace_id, migration_id, subscription_id, status, from_version_id, to_version_id,
           effective_at, proration_strategy)
         SELECT s.organization_id, s.workspace_id, $5, s.id, 'pending', s.plan_version_id, $4,
                CASE WHEN s.version_change_strategy = 'immediate' THEN $6::timestamptz
                     ELSE catalog_period_end_after(s.current_period_start, s.billing_cadence, $6::timestamptz) END,
                $7
           FROM subscriptions s
          WHERE ${MANUAL_SCOPE} AND s.plan_track_mode = 'latest'
            AND NOT EXISTS (SELECT 1 FROM subscription_product_pins p
                             WHERE p.organization_id = s.organization_id AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id)
         RETURNING 1)
       SELECT count(*)::int AS n FROM built`,
      [m.organizationId, m.workspaceId, m.planId, m.targetVersionId, m.id, at, m.prorationStrategy],
    );
    return row.n;
  }

  async hasLatestTrackers(tenant: TenantKey, planId: string): Promise<boolean> {
    const rows = await this.query(
      `SELECT 1 FROM subscriptions s
        WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.plan_id = $3 AND s.status = 'active' AND s.plan_track_mode = 'latest'
          AND NOT EXISTS (SELECT 1 FROM subscription_product_pins p
                           WHERE p.organization_id = s.organization_id AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id)
        LIMIT 1`,
      [tenant.organizationId, tenant.workspaceId, planId],
    );
    return rows.length > 0;
  }

  async supersedePending(tenant: TenantKey, planId: string, now: Date): Promise<string[]> {
    const rows = await this.query<{ migration_id: string }>(
      `WITH closed AS (
         UPDATE plan_migration_outcomes o SET status = 'skipped', reason = 'SUPERSEDED', processed_at = $4
           FROM plan_migrations m
          WHERE m.organization_id = $1 AND m.workspace_id = $2 AND m.plan_id = $3 AND m.trigger = 'publish' AND m.status = 'running'
            AND o.organization_id = m.organization_id AND o.workspace_id = m.workspace_id AND o.migration_id = m.id AND o.status = 'pending'
         RETURNING o.migration_id)
       SELECT DISTINCT migration_id FROM closed`,
      [tenant.organizationId, tenant.workspaceId, planId, now],
    );
    return rows.map((row) => row.migration_id);
  }

  async settleBatch(
    tenant: TenantKey,
    migrationId: string,
    now: Date,
    limit: number,
    after: BatchPosition = START,
  ): Promise<{ settled: number; moved: MovedSubscription[]; target: MigrationTarget & { planId: string }; last: BatchPosition }> {
    const [migration] = await this.query<{
      plan_id: string;
      status: MigrationStatus;
      target_version_id: string;
      target_version: number;
      price_cadence_unit: PriceCadenceUnit;
    }>(
      `SELECT m.plan_id, m.status, m.target_version_id, m.target_version, v.price_cadence_unit
         FROM plan_migrations m
         JOIN plan_versions v ON v.organization_id = m.organization_id AND v.workspace_id = m.workspace_id AND v.id = m.target_version_id
        WHERE m.organization_id = $1 AND m.workspace_id = $2 AND m.id = $3`,
      [tenant.organizationId, tenant.workspaceId, migrationId],
    );
    const target = migration && {
      planId: migration.plan_id,
      id: migration.target_version_id,
      version: migration.target_version,
      priceCadenceUnit: migration.price_cadence_unit,
    };
    if (!migration || migration.status !== 'running') return { settled: 0, moved: [], target, last: after };
    // Three statements, each indexed by the batch's ids, so a batch costs the same in a migration of
    // 10,000 or 1,000,000 outcomes (a join between CTEs is planned blind, and once scanned them all).
    // 1. The due outcomes, earliest first (the partial index's order: a batch reads 500 entries,
    //    not every pending one), skipping those another worker holds.
    const due = await this.query<{ subscription_id: string; effective_at: Date; proration_strategy: ProrationStrategy }>(
      `SELECT o.subscription_id, o.effective_at, o.proration_strategy FROM plan_migration_outcomes o
        WHERE o.organization_id = $1 AND o.workspace_id = $2 AND o.migration_id = $3 AND o.status = 'pending' AND o.effective_at <= $4
          AND (o.effective_at, o.subscription_id) > ($6::timestamptz, $7::uuid)
        ORDER BY o.effective_at, o.subscription_id LIMIT $5 FOR UPDATE SKIP LOCKED`,
      [tenant.organizationId, tenant.workspaceId, migrationId, now, limit, after.effectiveAt, after.subscriptionId],
    );
    if (due.length === 0) return { settled: 0, moved: [], target, last: after };
    const end = due[due.length - 1];
    const ids = due.map((row) => row.subscription_id);
    // 2. Their subscriptions, locked in id order, each classified (the first reason that applies).
    const classified = await this.query<{
      id: string;
      customer_id: string;
      from_version_id: string;
      from_version: number;
      reason: SkipReason | null;
    }>(
      `SELECT s.id, s.customer_id, s.plan_version_id AS from_version_id, v.version AS from_version,
              CASE WHEN s.status <> 'active' THEN 'NOT_ACTIVE'
                   WHEN s.plan_version_id = $4 THEN 'ALREADY_ON_TARGET'
                   WHEN s.billing_cadence <> $5 THEN 'CADENCE_MISMATCH'
                   WHEN ${pinNotIn('$4')} THEN 'PIN_NOT_IN_TARGET' END AS reason
         FROM subscriptions s
         JOIN plan_versions v ON v.organization_id = s.organization_id AND v.workspace_id = s.workspace_id AND v.id = s.plan_version_id
        WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.id = ANY($3::uuid[])
        ORDER BY s.id FOR NO KEY UPDATE OF s`,
      [tenant.organizationId, tenant.workspaceId, ids, target.id, target.priceCadenceUnit],
    );
    const outcome = new Map(due.map((row) => [row.subscription_id, row]));
    const moved = classified.filter((row) => row.reason === null);
    // 3. One write: the moves, every outcome settled, each move recorded.
    await this.query(
      `WITH moved AS (
         UPDATE subscriptions SET plan_version_id = $4, updated_at = $5
          WHERE organization_id = $1 AND workspace_id = $2 AND id = ANY($6::uuid[])
       ), settled AS (
         UPDATE plan_migration_outcomes o SET status = CASE WHEN u.reason IS NULL THEN 'moved' ELSE 'skipped' END, reason = u.reason,
                from_version_id = u.from_version_id, processed_at = $5
           FROM unnest($7::uuid[], $8::text[], $9::uuid[]) AS u (subscription_id, reason, from_version_id)
          WHERE o.organization_id = $1 AND o.workspace_id = $2 AND o.migration_id = $3 AND o.subscription_id = ANY($7::uuid[])
            AND o.subscription_id = u.subscription_id
       )
       INSERT INTO subscription_version_changes (organization_id, workspace_id, id, subscription_id, migration_id, from_version_id, to_version_id,
         proration_strategy, effective_at, created_at)
       SELECT $1, $2, m.id, m.subscription_id, $3, m.from_version_id, $4, m.proration_strategy, m.effective_at, $5
         FROM unnest($10::uuid[], $6::uuid[], $11::uuid[], $12::text[], $13::timestamptz[]) AS m (id, subscription_id, from_version_id, proration_strategy, effective_at)`,
      [
        tenant.organizationId,
        tenant.workspaceId,
        migrationId,
        target.id,
        now,
        moved.map((row) => row.id),
        classified.map((row) => row.id),
        classified.map((row) => row.reason),
        classified.map((row) => row.from_version_id),
        moved.map(() => newId()),
        moved.map((row) => row.from_version_id),
        moved.map((row) => outcome.get(row.id)!.proration_strategy),
        moved.map((row) => outcome.get(row.id)!.effective_at),
      ],
    );
    return {
      settled: classified.length,
      moved: moved.map((row) => ({
        subscriptionId: row.id,
        customerId: row.customer_id,
        fromVersionId: row.from_version_id,
        fromVersion: row.from_version,
        effectiveAt: outcome.get(row.id)!.effective_at,
        prorationStrategy: outcome.get(row.id)!.proration_strategy,
      })),
      target,
      last: { effectiveAt: end.effective_at, subscriptionId: end.subscription_id },
    };
  }

  async completeOrNextDue(tenant: TenantKey, migrationId: string, now: Date): Promise<Date | null> {
    const [row] = await this.query<{ next: Date | null }>(
      `SELECT min(effective_at) AS next FROM plan_migration_outcomes
        WHERE organization_id = $1 AND workspace_id = $2 AND migration_id = $3 AND status = 'pending'`,
      [tenant.organizationId, tenant.workspaceId, migrationId],
    );
    if (row.next) return row.next;
    // The row lock of the UPDATE makes one caller the one that completes it, and writes its event.
    const completed = await this.query(
      `UPDATE plan_migrations SET status = 'completed', completed_at = $4
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND status = 'running' RETURNING id`,
      [tenant.organizationId, tenant.workspaceId, migrationId, now],
    );
    if (completed.length > 0) {
      await this.events.publish(tenant, [
        { type: 'plan_migration.completed', read: (reader) => new GetMigrationQuery(reader, migrationId) },
      ]);
    }
    return null;
  }

  async failFirstDue(
    tenant: TenantKey,
    migrationId: string,
    now: Date,
    reason: string,
    after: BatchPosition = START,
  ): Promise<{ settled: number; last: BatchPosition }> {
    const rows = await this.query<{ subscription_id: string; effective_at: Date }>(
      `UPDATE plan_migration_outcomes o SET status = 'failed', reason = $5, processed_at = $4
        WHERE o.organization_id = $1 AND (o.organization_id, o.workspace_id, o.migration_id, o.subscription_id) = (
          SELECT d.organization_id, d.workspace_id, d.migration_id, d.subscription_id FROM plan_migration_outcomes d
           WHERE d.organization_id = $1 AND d.workspace_id = $2 AND d.migration_id = $3 AND d.status = 'pending' AND d.effective_at <= $4
             AND (d.effective_at, d.subscription_id) > ($6::timestamptz, $7::uuid)
           ORDER BY d.effective_at, d.subscription_id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING o.subscription_id, o.effective_at`,
      [tenant.organizationId, tenant.workspaceId, migrationId, now, reason, after.effectiveAt, after.subscriptionId],
    );
    const [failed] = rows;
    return failed
      ? { settled: 1, last: { effectiveAt: failed.effective_at, subscriptionId: failed.subscription_id } }
      : { settled: 0, last: after };
  }

  async overdue(limit: number): Promise<Array<TenantKey & { id: string; status: 'scheduled' | 'running' }>> {
    const rows = await this.query<{ organization_id: string; workspace_id: string; id: string; status: 'scheduled' | 'running' }>(
      `SELECT m.organization_id, m.workspace_id, m.id, m.status FROM plan_migrations m
        WHERE m.status = 'scheduled' AND m.scheduled_at <= now() - interval '1 minute'
       UNION ALL
       SELECT m.organization_id, m.workspace_id, m.id, m.status FROM plan_migrations m
        WHERE m.status = 'running' AND m.started_at <= now() - interval '1 minute'
          AND (EXISTS (SELECT 1 FROM plan_migration_outcomes o
                        WHERE o.organization_id = m.organization_id AND o.workspace_id = m.workspace_id AND o.migration_id = m.id
                          AND o.status = 'pending' AND o.effective_at <= now() - interval '1 minute')
               OR NOT EXISTS (SELECT 1 FROM plan_migration_outcomes o
                               WHERE o.organization_id = m.organization_id AND o.workspace_id = m.workspace_id AND o.migration_id = m.id
                                 AND o.status = 'pending'))
       LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({
      organizationId: row.organization_id,
      workspaceId: row.workspace_id,
      id: row.id,
      status: row.status,
    }));
  }

  private query<Row = Record<string, unknown>>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}
