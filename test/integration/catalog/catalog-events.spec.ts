import { CascadeRuns, CostCascades, PlanReleases, ProductReleases } from '@app/catalog';
import { ManualClock } from '@app/shared-kernel';
import { eventually } from '../../support/auth-helpers';
import { CatalogClient, drainCascades, scheduleDraft } from '../../support/catalog-helpers';
import { SubscriptionClient } from '../../support/subscription-helpers';
import { createTenant, TestTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';
import { DataSource } from 'typeorm';

jest.setTimeout(90_000);

const HOUR = 3_600_000;

/**
 * The catalog's events of background work (api-contract §4), each written in the job's own
 * transaction with the object the resource's GET answers then, and no request: a scheduled
 * release fired by its job, a cascade run's tasks and completion (once, however its last tasks
 * race), a migration's moves and completion.
 */
describe('Catalog events written by jobs', () => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await createTestApp({ clock });
  });
  afterAll(() => t.close());

  async function events(tenant: TestTenant, type: string): Promise<any[]> {
    const response = await t.http.get(`/v1/events?type=${type}&limit=200`).set('Authorization', tenant.auth).expect(200);
    return response.body.data.reverse();
  }

  async function body(api: CatalogClient, path: string): Promise<any> {
    const response = await api.get(path);
    expect(response.status).toBe(200);
    return response.body;
  }

  it('writes change.applied and product.version.published when the release job fires a product release', async () => {
    const tenant = await createTenant(t);
    const api = new CatalogClient(t, tenant.auth);
    await api.orgCost('fee', { amount: '10' });
    const product = await api.liveProduct('fee * 2');
    expect((await api.patch(`/v1/products/${product.id}`, { price_expression: 'fee * 3' })).status).toBe(200);
    const change = await scheduleDraft(api, product.id, new Date(clock.now().getTime() + HOUR));
    const before = (await events(tenant, 'change.*,product.version.*')).length;

    clock.advance(HOUR + 1_000);
    const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId };
    await t.app.get(ProductReleases).fire({ ...key, productId: product.id, changeId: change.id });

    const fired = (await events(tenant, 'change.*,product.version.*')).slice(before);
    expect(fired.map((event) => [event.type, event.request])).toEqual([
      ['product.version.published', null],
      ['change.applied', null],
    ]);
    expect(fired[1].data.object).toEqual(await body(api, `/v1/changes/${change.id}`));
    const [live] = (await body(api, `/v1/products/${product.id}/versions`)).data;
    expect(fired[0].data.object).toEqual(live);
    expect(live).toMatchObject({ status: 'published', origin: 'scheduled_release', change_id: change.id });
    // Firing again (a second instance's job) finds nothing due and writes nothing.
    await t.app.get(ProductReleases).fire({ ...key, productId: product.id, changeId: change.id });
    expect(await events(tenant, 'change.*,product.version.*')).toHaveLength(before + 2);
  });

  it('writes nothing when the job’s release fails (its change failed, its version errored: no type tells either)', async () => {
    const tenant = await createTenant(t);
    const api = new CatalogClient(t, tenant.auth);
    await api.orgCost('base', { amount: '10' });
    const extra = await api.orgCost('extra', { amount: '1' });
    const product = await api.liveProduct('base * 2');
    expect((await api.patch(`/v1/products/${product.id}`, { price_expression: 'base * 2 + extra' })).status).toBe(200);
    const change = await scheduleDraft(api, product.id, new Date(clock.now().getTime() + HOUR));
    expect((await api.delete(`/v1/costs/${extra.id}`)).status).toBe(204);
    const before = await events(tenant, 'change.*,product.version.*');

    clock.advance(HOUR + 1_000);
    const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId };
    await t.app.get(ProductReleases).fire({ ...key, productId: product.id, changeId: change.id });

    expect((await body(api, `/v1/changes/${change.id}`)).status).toBe('failed');
    expect(await events(tenant, 'change.*,product.version.*')).toEqual(before);
  });

  it('writes the plan version events of a scheduled release, and of its firing by the job', async () => {
    const tenant = await createTenant(t);
    const api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
    await api.orgCost('seat', { amount: '10' });
    const product = await api.liveProduct('seat * 2');
    const planId = await api.plan([product.id]);
    await api.publishPlan(planId);
    expect((await api.patch(`/v1/plans/${planId}/products/${product.id}`, { included_quantity: '200' })).status).toBe(200);
    const change = await api.publishPlan(planId, { scheduled_for: new Date(clock.now().getTime() + HOUR).toISOString() });
    const [scheduled] = await events(tenant, 'plan.version.scheduled');
    expect(scheduled.data.object).toMatchObject({ object: 'plan_version', version: 2, status: 'scheduled', rank: 1 });
    expect(scheduled.request).not.toBeNull();

    clock.advance(HOUR + 1_000);
    const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId };
    await t.app.get(PlanReleases).fire({ ...key, planId, changeId: change.id });

    const fired = (await events(tenant, 'change.applied,plan.version.*')).filter((event) => event.request === null);
    expect(fired.map((event) => [event.type, event.data.object.version, event.data.object.status])).toEqual([
      ['plan.version.archived', 1, 'archived'],
      ['plan.version.published', 2, 'published'],
      ['change.applied', undefined, 'applied'],
    ]);
    expect(fired[0].data.object).toEqual(await body(api, `/v1/plans/${planId}/versions/1`));
    expect(fired[1].data.object).toEqual(await body(api, `/v1/plans/${planId}/versions/2`));
    expect(fired[2].data.object).toEqual(await body(api, `/v1/changes/${change.id}`));
    expect(fired[0].sequence).toBeGreaterThan(scheduled.sequence);
  });

  it('completes a cascade run once, with one event, when its last tasks finish side by side', async () => {
    const tenant = await createTenant(t);
    const api = new CatalogClient(t, tenant.auth);
    const cost = await api.orgCost('unit', { amount: '1' });
    const products = [await api.liveProduct('unit * 2'), await api.liveProduct('unit * 3'), await api.liveProduct('unit * 4')];
    const updated = await api.patch(`/v1/costs/${cost.id}`, { amount: '2' });
    expect(updated.status).toBe(200);
    const runId = updated.body.cascade_run_id;
    const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, runId };
    const cascades = t.app.get(CostCascades);
    await cascades.expand(key);
    // The queue's workers may take some tasks too: a finished task is a no-op, and completion is counted once.
    await Promise.all(products.map((product) => cascades.runTask({ ...key, productId: product.id })));
    await drainCascades(t);

    const completed = await eventually(async () => {
      const found = await events(tenant, 'cascade_run.completed');
      return found.length > 0 ? found : undefined;
    }, 10_000);
    expect(completed).toHaveLength(1);
    expect(completed[0].request).toBeNull();
    expect(completed[0].data.object).toEqual(await body(api, `/v1/cascade_runs/${runId}`));
    expect(completed[0].data.object).toMatchObject({ status: 'completed', counts: { total: 3, republished: 3, pending: 0 } });
    const republished = (await events(tenant, 'product.version.published')).filter((event) => event.request === null);
    expect(republished.map((event) => event.data.object.product_id).sort()).toEqual(products.map((product) => product.id).sort());
    for (const event of republished) expect(event.sequence).toBeLessThan(completed[0].sequence);
    // A late look (the settle job, a rerun) finds the run completed and writes nothing more.
    await t.app.get(CascadeRuns).settle({ organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, runId });
    expect(await events(tenant, 'cascade_run.completed')).toHaveLength(1);
  });

  it('leaves the completion to the settle job when the run is held as its last task finishes', async () => {
    const tenant = await createTenant(t);
    const api = new CatalogClient(t, tenant.auth);
    const cost = await api.orgCost('held', { amount: '1' });
    const product = await api.liveProduct('held * 2');
    const runId = (await api.patch(`/v1/costs/${cost.id}`, { amount: '2' })).body.cascade_run_id;
    const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, runId };
    await t.app.get(CostCascades).expand(key);
    // Another step looking at the run (a task's transaction, not yet committed) holds its row.
    const holder = t.app.get(DataSource).createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query(`SELECT id FROM cascade_runs WHERE organization_id = $1 AND id = $2 FOR UPDATE`, [
        tenant.organization_id,
        runId,
      ]);
      await t.app.get(CostCascades).runTask({ ...key, productId: product.id });
      expect(await events(tenant, 'cascade_run.completed')).toEqual([]);
    } finally {
      await holder.commitTransaction();
      await holder.release();
    }
    const completed = await eventually(async () => {
      const found = await events(tenant, 'cascade_run.completed');
      return found.length > 0 ? found : undefined;
    }, 10_000);
    expect(completed.map((event) => event.data.object)).toEqual([await body(api, `/v1/cascade_runs/${runId}`)]);
  });

  it('completes a run with nothing to republish when it is expanded', async () => {
    const tenant = await createTenant(t);
    const api = new CatalogClient(t, tenant.auth);
    const cost = await api.orgCost('unused', { amount: '1' });
    const runId = (await api.patch(`/v1/costs/${cost.id}`, { amount: '2' })).body.cascade_run_id;
    await t.app.get(CostCascades).expand({ organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, runId });
    const completed = await events(tenant, 'cascade_run.completed');
    expect(completed.map((event) => event.data.object)).toEqual([await body(api, `/v1/cascade_runs/${runId}`)]);
    expect(completed[0].data.object.counts.total).toBe(0);
  });

  it('writes subscription.version_changed for each subscriber a migration moves, then plan_migration.completed', async () => {
    const tenant = await createTenant(t);
    const api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
    await api.orgCost('seat', { amount: '10' });
    const product = await api.liveProduct('seat * 2');
    const planId = await api.plan([product.id]);
    await api.publishPlan(planId);
    const customer = await api.customer();
    const subscriptions = [
      await api.subscribe({ customer_id: customer, plan_id: planId }),
      await api.subscribe({ customer_id: customer, plan_id: planId }),
    ];
    await api.republishPlan(planId, product.id, '200');
    const migrate = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 2 });
    expect(migrate.status).toBe(200);
    await api.runMigration(migrate.body.migration_id);

    const moved = await events(tenant, 'subscription.version_changed');
    expect(moved.map((event) => event.data.object.id).sort()).toEqual(
      subscriptions.map((subscription) => subscription.id).sort(),
    );
    for (const event of moved) {
      expect(event.request).toBeNull();
      expect(event.data.object).toEqual(await api.subscription(event.data.object.id));
      expect(event.data.object.plan_version.version).toBe(2);
      expect(event.data.previous_attributes).toEqual({ plan_version: subscriptions[0].plan_version });
    }
    const completed = await events(tenant, 'plan_migration.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0].data.object).toEqual(await api.migration(migrate.body.migration_id));
    expect(completed[0].data.object).toMatchObject({ status: 'completed', counts: { moved: 2, pending: 0 } });
    for (const event of moved) expect(event.sequence).toBeLessThan(completed[0].sequence);
  });
});
