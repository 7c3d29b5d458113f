import { MIGRATION_BATCH_SIZE, MIGRATION_BATCHES_PER_RUN, MigrationRunner } from '@app/catalog';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from '../../support/auth-helpers';
import { CatalogClient } from '../../support/catalog-helpers';
import { SubscriptionClient } from '../../support/subscription-helpers';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const SUBSCRIBERS = 2_000;

/**
 * Model §4.8 at scale: an IMMEDIATE migration of 2,000 subscriptions (seeded by SQL) leaves no
 * subscription without an outcome (the outcomes sum to the affected count), and batch jobs run
 * side by side, and run again, move every subscription exactly once.
 */
describe('Plan migration of 2,000 subscriptions', () => {
  let t: TestApp;
  let db: DataSource;
  let api: SubscriptionClient;
  let planId: string;
  let runner: MigrationRunner;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    runner = t.app.get(MigrationRunner);
    const tenant = await createTenant(t);
    api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
    await api.orgCost('seat', { amount: '10' });
    const product = await api.liveProduct('seat * 2');
    planId = await api.plan([product.id]);
    await api.publishPlan(planId);
    await api.republishPlan(planId, product.id, '200');
    const customer = await api.customer();
    const v1 = (await api.get(`/v1/plans/${planId}/versions/1`)).body.id;
    await db.query(
      `INSERT INTO subscriptions (organization_id, workspace_id, id, customer_id, plan_id, plan_version_id, status, billing_cadence,
         current_period_start, current_period_end, created_at, updated_at, canceled_at)
       SELECT $1, $2, gen_random_uuid(), $3, $4, $5, CASE WHEN i % 20 = 0 THEN 'canceled' ELSE 'active' END, 'month',
              now(), now() + interval '1 month', now(), now(), CASE WHEN i % 20 = 0 THEN now() END
         FROM generate_series(1, $6::int) AS i`,
      [tenant.organization_id, tenant.liveWorkspaceId, customer, planId, v1, 2_105], // every 20th canceled: 2,000 active,
    );
  });
  afterAll(() => t.close());

  /** Runners return when no due outcome is left for them; one another still holds may commit just after. */
  async function completed(migrationId: string): Promise<any> {
    return eventually(async () => {
      const migration = await api.migration(migrationId);
      return migration.status === 'completed' ? migration : undefined;
    }, 30_000);
  }

  async function totals(migrationId: string) {
    const [row] = await db.query(
      `SELECT (SELECT count(*)::int FROM plan_migration_outcomes WHERE migration_id = $1) AS outcomes,
              (SELECT count(*)::int FROM plan_migration_outcomes WHERE migration_id = $1 AND status = 'moved') AS moved,
              (SELECT count(*)::int FROM subscription_version_changes WHERE migration_id = $1) AS changes,
              (SELECT count(DISTINCT subscription_id)::int FROM subscription_version_changes WHERE migration_id = $1) AS distinct_moved,
              (SELECT count(*)::int FROM outbox_events WHERE event_type = 'subscription.version_changed' AND payload->>'migrationId' = $1::text) AS events`,
      [migrationId],
    );
    return row;
  }

  it('migrates every ACTIVE subscription once, with batch jobs racing each other and running again', async () => {
    const active = await db.query(`SELECT count(*)::int AS n FROM subscriptions WHERE plan_id = $1 AND status = 'active'`, [
      planId,
    ]);
    expect(active[0].n).toBe(SUBSCRIBERS);
    const response = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 2 });
    expect(response.status).toBe(200);
    expect(response.body.affected_subscriptions).toBe(SUBSCRIBERS);
    const migrationId = response.body.migration_id;
    const job = { organizationId: api.tenant.organization_id, workspaceId: api.tenant.liveWorkspaceId, migrationId };
    const sends = jest.spyOn(runner, 'enqueueRun');
    // The queue's own worker runs it too: three runners, batches of 500 skipping each other's locks.
    await Promise.all([runner.run(job), runner.run(job)]);
    const migration = await completed(migrationId);
    // No run held its worker for the whole migration: after MIGRATION_BATCHES_PER_RUN batches it sent itself on, due now.
    expect(SUBSCRIBERS).toBeGreaterThan(MIGRATION_BATCH_SIZE * MIGRATION_BATCHES_PER_RUN);
    expect(sends.mock.calls.filter(([, id, at]) => id === migrationId && at === undefined).length).toBeGreaterThanOrEqual(1);
    sends.mockRestore();
    const done = await totals(migrationId);
    expect(done).toEqual({
      outcomes: SUBSCRIBERS,
      moved: SUBSCRIBERS,
      changes: SUBSCRIBERS,
      distinct_moved: SUBSCRIBERS,
      events: SUBSCRIBERS,
    });
    expect(migration).toMatchObject({
      status: 'completed',
      counts: { total: SUBSCRIBERS, moved: SUBSCRIBERS, pending: 0, skipped: 0, failed: 0 },
    });
    // A batch run again settles nothing, and moves nobody twice.
    expect(await runner.settleBatch(job)).toBe(0);
    await runner.run(job);
    expect(await totals(migrationId)).toEqual(done);
    const [{ off }] = await db.query(
      `SELECT count(*)::int AS off FROM subscriptions WHERE plan_id = $1 AND status = 'active' AND plan_version_id <>
      (SELECT id FROM plan_versions WHERE plan_id = $1 AND version = 2)`,
      [planId],
    );
    expect(off).toBe(0);
  });

  it('keeps the sum of outcomes equal to the affected count when subscriptions change while the migration runs', async () => {
    const response = await api.post(`/v1/plans/${planId}/migrate`, {
      mode: 'IMMEDIATE',
      target_version: 1,
      proration_strategy: 'none',
    });
    const migrationId = response.body.migration_id;
    expect(response.body.affected_subscriptions).toBe(SUBSCRIBERS);
    // Cancel 100 of them before their batch runs: they end skipped NOT_ACTIVE, not dropped.
    await db.query(
      `UPDATE subscriptions SET status = 'canceled', canceled_at = now()
        WHERE id IN (SELECT subscription_id FROM plan_migration_outcomes WHERE migration_id = $1 AND status = 'pending' ORDER BY subscription_id DESC LIMIT 100)`,
      [migrationId],
    );
    const job = { organizationId: api.tenant.organization_id, workspaceId: api.tenant.liveWorkspaceId, migrationId };
    await runner.run(job);
    const migration = await completed(migrationId);
    expect(migration.counts.pending).toBe(0);
    expect(migration.counts.moved + migration.counts.skipped + migration.counts.failed).toBe(SUBSCRIBERS);
    expect(migration.counts.total).toBe(SUBSCRIBERS);
    expect(migration.skipped_by_reason.NOT_ACTIVE).toBe(migration.counts.skipped);
    const done = await totals(migrationId);
    expect(done.changes).toBe(migration.counts.moved);
    expect(done.distinct_moved).toBe(migration.counts.moved);
  });

  it('fails alone, with SUBSCRIPTION_MOVE_REFUSED, each subscription whose move the database refuses; the others move', async () => {
    const refused: string[] = (
      await db.query(`SELECT id FROM subscriptions WHERE plan_id = $1 AND status = 'active' ORDER BY md5(id::text) LIMIT 3`, [
        planId,
      ])
    ).map((row: { id: string }) => row.id);
    // A trigger stands for any rule the database enforces that one subscription's move breaks.
    const trigger = `refuse_${randomBytes(4).toString('hex')}`;
    await db.query(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = ANY('{${refused.join(',')}}'::uuid[]) AND NEW.plan_version_id <> OLD.plan_version_id THEN
          RAISE EXCEPTION 'subscription % is frozen', NEW.id;
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(`CREATE TRIGGER ${trigger} BEFORE UPDATE ON subscriptions FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      const before = await db.query(`SELECT count(*)::int AS n FROM subscriptions WHERE plan_id = $1 AND status = 'active'`, [
        planId,
      ]);
      const response = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 2 });
      expect(response.status).toBe(200);
      const affected = response.body.affected_subscriptions;
      expect(affected).toBe(before[0].n);
      const migrationId = response.body.migration_id;
      await runner.run({ organizationId: api.tenant.organization_id, workspaceId: api.tenant.liveWorkspaceId, migrationId });
      const migration = await completed(migrationId);
      expect(migration.counts).toEqual({ total: affected, pending: 0, moved: affected - 3, skipped: 0, failed: 3 });
      const failed = await api.get(`/v1/migrations/${migrationId}/outcomes?status=failed&limit=10`);
      expect(failed.status).toBe(200);
      expect(failed.body.data.map((row: any) => row.subscription_id).sort()).toEqual([...refused].sort());
      for (const row of failed.body.data) expect(row).toMatchObject({ status: 'failed', reason: 'SUBSCRIPTION_MOVE_REFUSED' });
      const done = await totals(migrationId);
      expect(done).toMatchObject({
        moved: affected - 3,
        changes: affected - 3,
        distinct_moved: affected - 3,
        events: affected - 3,
      });
      const stayed = await db.query(
        `SELECT count(*)::int AS n FROM subscriptions s
           JOIN plan_versions v ON v.organization_id = s.organization_id AND v.workspace_id = s.workspace_id AND v.id = s.plan_version_id
          WHERE s.organization_id = $2 AND s.id = ANY($1::uuid[]) AND v.version = 1`,
        [refused, api.tenant.organization_id],
      );
      expect(stayed[0].n).toBe(3);
    } finally {
      await db.query(`DROP TRIGGER ${trigger} ON subscriptions`);
      await db.query(`DROP FUNCTION ${trigger}()`);
    }
  });

  it('sends on, a minute after they were due, migrations their jobs left behind (running or scheduled)', async () => {
    const tenant = { organizationId: api.tenant.organization_id, workspaceId: api.tenant.liveWorkspaceId };
    // A running migration whose run job gave up with outcomes still pending, a minute overdue.
    const left = (await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 1 })).body.migration_id;
    await completed(left);
    await db.query(
      `WITH reopened AS (
         UPDATE plan_migration_outcomes SET status = 'pending', reason = NULL, processed_at = NULL, effective_at = now() - interval '2 minutes'
          WHERE migration_id = $1 AND subscription_id IN (SELECT subscription_id FROM plan_migration_outcomes WHERE migration_id = $1 LIMIT 5)
       )
       UPDATE plan_migrations SET status = 'running', completed_at = NULL, started_at = now() - interval '2 minutes' WHERE id = $1`,
      [left],
    );
    expect((await api.migration(left)).status).toBe('running');
    // A scheduled one whose start job is queued for later than its time (as a lost job would leave it).
    const scheduled = await api.post(`/v1/plans/${planId}/migrate`, {
      mode: 'SCHEDULED',
      target_version: 2,
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(scheduled.status).toBe(200);
    const late = scheduled.body.migration_id;
    await db.query(`UPDATE plan_migrations SET scheduled_at = now() - interval '2 minutes' WHERE id = $1`, [late]);

    const sent = await runner.sweep();
    expect(sent).toBeGreaterThanOrEqual(2);
    const reopened = await completed(left);
    expect(reopened.counts.pending).toBe(0);
    expect(reopened.counts.total).toBe(reopened.counts.moved + reopened.counts.skipped + reopened.counts.failed);
    const started = await completed(late);
    expect(started.counts.pending).toBe(0);
    expect(started.counts.total).toBe(started.counts.moved + started.counts.skipped + started.counts.failed);
    // Nothing is left behind, so the next sweep sends nothing of this tenant's.
    expect(
      (
        await db.query(
          `SELECT count(*)::int AS n FROM plan_migrations WHERE organization_id = $1 AND status IN ('running', 'scheduled')`,
          [tenant.organizationId],
        )
      )[0].n,
    ).toBe(0);
  });
});
