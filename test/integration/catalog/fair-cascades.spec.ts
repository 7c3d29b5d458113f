import { CASCADE_EXPAND_PAGE, CASCADE_RUN_JOB, CostCascades } from '@app/catalog';
import { ManualClock } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource } from 'typeorm';
import { CatalogClient } from '../../support/catalog-helpers';
import { createTenant, TestTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(300_000);

const FAN_OUT = 200;

/**
 * Issue 19 item 6: the shared cascade queue serves organizations fairly and live work before
 * sandbox work. The app's clock is set after the real date, so the queue never starts the run jobs
 * by itself: the test expands a large run (every page), then a one-product run, in that order and in
 * one transaction, so the app's real workers see every task at once and only the queue's order decides
 * which they take first. What is asserted is order, not time: when the small cascade is done, most of
 * the large one is still pending (first come, first served finished the large one first).
 */
describe('Cascade tasks are scheduled fairly per organization, live before sandbox (PostgreSQL)', () => {
  const clock = new ManualClock(new Date('2028-03-01T08:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** A cost of the workspace consumed by `count` live products; the change of its value, saved (its run id). */
  async function costChangeWithConsumers(api: CatalogClient, count: number): Promise<string> {
    const cost = await api.orgCost(`fair_${count}_${Math.random().toString(36).slice(2, 8)}`, { amount: '1' });
    for (let index = 1; index <= count; index += 1) await api.liveProduct(`${cost.key} * ${index}`);
    clock.advance(1000);
    const saved = await api.patch(`/v1/costs/${cost.id}`, { amount: '2' });
    expect(saved.status).toBe(200);
    return saved.body.cascade_run_id;
  }

  async function expand(tenant: TestTenant, workspaceId: string, runId: string): Promise<void> {
    await t.app
      .get(CostCascades)
      .expand({ organizationId: tenant.organization_id, workspaceId, runId, workspaceMode: modeOf(tenant, workspaceId) });
  }

  /** Every page of the run expanded, in the caller's transaction: all its tasks are queued. */
  async function expandFully(tenant: TestTenant, workspaceId: string, runId: string): Promise<void> {
    const tx = t.app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost).tx;
    for (;;) {
      const [run] = await tx.query(`SELECT status FROM cascade_runs WHERE id = $1`, [runId]);
      if (run.status !== 'pending') return;
      const [last] = await tx.query(`SELECT subject_id FROM cascade_tasks WHERE run_id = $1 ORDER BY subject_id DESC LIMIT 1`, [
        runId,
      ]);
      await t.app.get(CostCascades).expand({
        organizationId: tenant.organization_id,
        workspaceId,
        runId,
        workspaceMode: modeOf(tenant, workspaceId),
        after: last?.subject_id,
      });
    }
  }

  /** The large run's tasks, then the small one's, committed together: the workers see them at once. */
  async function enqueueInOrder(large: [TestTenant, string, string], small: [TestTenant, string, string]): Promise<void> {
    await t.app.get(TransactionHost).withTransaction(async () => {
      await expandFully(...large);
      await expand(...small);
    });
  }

  function modeOf(tenant: TestTenant, workspaceId: string): 'live' | 'sandbox' {
    return workspaceId === tenant.liveWorkspaceId ? 'live' : 'sandbox';
  }

  async function pending(runId: string): Promise<number> {
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM cascade_tasks WHERE run_id = $1 AND status = 'pending'`,
      [runId],
    );
    return count;
  }

  /** Waits for the run's tasks to finish; how many of the other run's tasks were still pending then. */
  async function pendingOfOtherWhenDone(runId: string, otherRunId: string): Promise<number> {
    for (;;) {
      const [row] = await db.query(
        `SELECT count(*) FILTER (WHERE run_id = $1 AND status = 'pending')::int AS mine,
                count(*) FILTER (WHERE run_id = $2 AND status = 'pending')::int AS other
           FROM cascade_tasks WHERE run_id IN ($1, $2)`,
        [runId, otherRunId],
      );
      if (row.mine === 0) return row.other;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function drained(runId: string): Promise<void> {
    while ((await pending(runId)) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it("serves another organization's one-product cascade before a large fan-out enqueued first finishes", async () => {
    const noisy = await createTenant(t);
    const quiet = await createTenant(t);
    const noisyRun = await costChangeWithConsumers(new CatalogClient(t, noisy.auth), FAN_OUT);
    const quietRun = await costChangeWithConsumers(new CatalogClient(t, quiet.auth), 1);

    await enqueueInOrder([noisy, noisy.liveWorkspaceId, noisyRun], [quiet, quiet.liveWorkspaceId, quietRun]);

    expect(await pendingOfOtherWhenDone(quietRun, noisyRun)).toBeGreaterThanOrEqual(FAN_OUT / 2);
    await drained(noisyRun);
  });

  it("serves an organization's live cascade before its own sandbox fan-out enqueued first", async () => {
    const tenant = await createTenant(t);
    const sandboxRun = await costChangeWithConsumers(new CatalogClient(t, tenant.sandboxAuth), FAN_OUT);
    const liveRun = await costChangeWithConsumers(new CatalogClient(t, tenant.auth), 1);

    await enqueueInOrder([tenant, tenant.sandboxWorkspaceId, sandboxRun], [tenant, tenant.liveWorkspaceId, liveRun]);

    expect(await pendingOfOtherWhenDone(liveRun, sandboxRun)).toBeGreaterThanOrEqual(FAN_OUT / 2);
    await drained(sandboxRun);
  });

  it('expands at most CASCADE_EXPAND_PAGE consumers per run of the run job and continues in the next run, each task once', async () => {
    const tenant = await createTenant(t);
    const runId = await costChangeWithConsumers(new CatalogClient(t, tenant.auth), CASCADE_EXPAND_PAGE + 1);

    await expand(tenant, tenant.liveWorkspaceId, runId);
    // The continuation runs on the app's queue; the run reads as pending until its last page is expanded.
    for (;;) {
      const [run] = await db.query(`SELECT status FROM cascade_runs WHERE id = $1`, [runId]);
      if (run.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const tasks: { subject_id: string }[] = await db.query(
      `SELECT subject_id FROM cascade_tasks WHERE run_id = $1 ORDER BY subject_id`,
      [runId],
    );
    expect(tasks).toHaveLength(CASCADE_EXPAND_PAGE + 1);
    const continuations: { singleton_key: string }[] = await db.query(
      `SELECT singleton_key FROM pgboss.job WHERE name = $1 AND data->>'runId' = $2 AND data ? 'after'`,
      [CASCADE_RUN_JOB, runId],
    );
    expect(continuations.map((job) => job.singleton_key)).toEqual([`${runId}:${tasks[CASCADE_EXPAND_PAGE - 1].subject_id}`]);
    await drained(runId);
  });
});
