import { randomUUID } from 'node:crypto';
import { TransactionHost } from '@nestjs-cls/transactional';
import { PlanCascades } from '@app/catalog';
import { DataSource } from 'typeorm';
import { eventually } from '../../support/auth-helpers';
import { CatalogClient } from '../../support/catalog-helpers';
import { addMembership, createPlan, publishPlan } from '../../support/plan-helpers';
import { createTenant, TestTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(90_000);

/**
 * Plan tasks against concurrent product go-lives (model §3.5 "Into plans"), with the real
 * transactions, row locks and job queue: a go-live inside a cost cascade joins the plan's task of
 * that run while it has not started (it waits for the go-live's commit, so it reads it), and gets
 * a run of its own when the task is running or done — no go-live is ever missed. Plans end on
 * every product's head whatever the interleaving.
 */
describe('Plan cascades under concurrent product go-lives', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let api: CatalogClient;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    api = new CatalogClient(t, tenant.auth);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const tenantKey = () => ({ organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId });

  /** A cost cascade's run, as the cost save records it (its own tasks do not matter here). */
  async function costRun(): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO cascade_runs (organization_id, workspace_id, id, trigger, source_type, source_id, source_version_id, source_version, status,
         effective_at, created_by, created_at, started_at)
       VALUES ($1, $2, $3, 'cost_value', 'cost', $4, $5, 1, 'running', now(), '{"type":"system","id":null,"via":"cascade"}', now(), now())`,
      [tenant.organization_id, tenant.liveWorkspaceId, id, randomUUID(), randomUUID()],
    );
    return id;
  }

  /** The go-live's enqueue, in a transaction of its own (as the product task's). */
  function goLive(product: any, rootRunId: string): Promise<string | undefined> {
    const cascades = t.app.get(PlanCascades);
    return t.app
      .get(TransactionHost)
      .withTransaction(() =>
        cascades.afterProductGoLive(
          tenantKey(),
          { productId: product.id, versionId: product.live_version.id, version: 1 },
          { type: 'system', id: null },
          rootRunId,
        ),
      );
  }

  async function planTasks(runId: string): Promise<Array<{ subject_id: string; status: string }>> {
    return db.query(
      `SELECT subject_id, status FROM cascade_tasks WHERE organization_id = $2 AND run_id = $1 AND subject_kind = 'plan'`,
      [runId, tenant.organization_id],
    );
  }

  async function childRuns(rootRunId: string): Promise<Array<{ id: string; source_id: string }>> {
    return db.query(
      `SELECT id, source_id FROM cascade_runs WHERE organization_id = $2 AND root_run_id = $1 ORDER BY created_at`,
      [rootRunId, tenant.organization_id],
    );
  }

  it('joins the pending task of its cost run, and starts a run of its own when that task is running (locked) or done', async () => {
    const [a, b, c, d] = [
      await api.liveProduct('1'),
      await api.liveProduct('2'),
      await api.liveProduct('3'),
      await api.liveProduct('4'),
    ];
    const plan = await createPlan(api);
    for (const product of [a, b, c, d]) await addMembership(api, plan.id, product.id);
    await publishPlan(api, plan.id);
    const run = await costRun();

    // First go-live of the run: the plan's task is created under the run.
    expect(await goLive(a, run)).toBeUndefined();
    expect(await planTasks(run)).toEqual([{ subject_id: plan.id, status: 'pending' }]);

    // Pending and not started: a second product joins it (no new run, no second task).
    expect(await goLive(b, run)).toBeUndefined();
    expect(await planTasks(run)).toHaveLength(1);
    expect(await childRuns(run)).toEqual([]);

    // Running: the task holds its row. The go-live does not wait for it, and does not rely on it.
    const running = db.createQueryRunner();
    await running.connect();
    await running.startTransaction();
    try {
      // By its whole key, organization first: on Citus a row lock must name the shard it is on.
      await running.query(
        `SELECT 1 FROM cascade_tasks WHERE organization_id = $3 AND run_id = $1 AND subject_kind = 'plan' AND subject_id = $2 FOR UPDATE`,
        [run, plan.id, tenant.organization_id],
      );
      const own = await goLive(c, run);
      expect(own).toEqual(expect.any(String));
      expect(await childRuns(run)).toEqual([{ id: own, source_id: c.id }]);
      expect(await planTasks(own!)).toEqual([{ subject_id: plan.id, status: 'pending' }]);
      expect((await api.get(`/v1/cascade_runs/${own}`)).body).toMatchObject({
        trigger: 'product_go_live',
        root_run_id: run,
        counts: { total: 1, pending: 1 },
      });
    } finally {
      await running.rollbackTransaction();
      await running.release();
    }

    // Done: a late go-live of the same cascade gets its own run too.
    await db.query(
      `UPDATE cascade_tasks SET status = 'unchanged' WHERE organization_id = $2 AND run_id = $1 AND subject_kind = 'plan'`,
      [run, tenant.organization_id],
    );
    const late = await goLive(d, run);
    expect(late).toEqual(expect.any(String));
    expect((await childRuns(run)).map((child) => child.source_id)).toEqual([c.id, d.id]);
  });

  it('moves a plan onto every product’s new head when two products go live at once (the queue runs the tasks)', async () => {
    const a = await api.liveProduct('10');
    const b = await api.liveProduct('20');
    const plan = await createPlan(api);
    await addMembership(api, plan.id, a.id);
    await addMembership(api, plan.id, b.id);
    await publishPlan(api, plan.id);
    for (const [product, price] of [
      [a, '11'],
      [b, '21'],
    ] as const) {
      expect((await api.patch(`/v1/products/${product.id}`, { price_expression: price })).status).toBe(200);
    }
    const published = await Promise.all([api.publish(a.id), api.publish(b.id)]);
    const heads = new Map([
      [a.id, published[0].result.id],
      [b.id, published[1].result.id],
    ]);
    // Each go-live enqueued a plan task 2 s later; the queue's workers run them.
    await eventually(async () => {
      const [{ pending }] = await db.query(
        `SELECT count(*)::int AS pending FROM cascade_tasks t
           JOIN cascade_runs r ON r.organization_id = t.organization_id AND r.workspace_id = t.workspace_id AND r.id = t.run_id
          WHERE t.organization_id = $2 AND t.subject_kind = 'plan' AND t.subject_id = $1 AND t.status = 'pending'`,
        [plan.id, tenant.organization_id],
      );
      return pending === 0 ? true : undefined;
    }, 30_000);
    const tasks: Array<{ status: string }> = await db.query(
      `SELECT status FROM cascade_tasks WHERE organization_id = $2 AND subject_kind = 'plan' AND subject_id = $1`,
      [plan.id, tenant.organization_id],
    );
    expect(tasks.length).toBe(2);
    expect(tasks.filter((task) => task.status === 'errored')).toEqual([]);
    const live = (await api.get(`/v1/plans/${plan.id}`)).body;
    expect(live.products.map((membership: any) => [membership.product_id, membership.product_version_id])).toEqual([
      [a.id, heads.get(a.id)],
      [b.id, heads.get(b.id)],
    ]);
    const versions = (await api.get(`/v1/plans/${plan.id}/versions`)).body.data;
    expect(versions.filter((row: any) => row.status === 'published')).toHaveLength(1);
    expect(versions.every((row: any) => row.origin !== 'cascade' || row.cascade_source?.entity_type === 'product')).toBe(true);
  });
});
