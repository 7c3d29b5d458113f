import { CostCascades } from '@app/catalog';
import { ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { CatalogClient, drainCascades, productOf, versionsOf } from '../support/catalog-helpers';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const HOUR = 3_600_000;

/**
 * Cascades over HTTP (model §3.5): an ORG value taking effect (now or at a future effective_at)
 * or an ORG retirement republishes every ACTIVE product whose head resolved the cost, one
 * idempotent task per product; failures leave an errored version and the old head billing. The
 * app runs on a ManualClock set after the real date: the tests run the jobs (drainCascades).
 */
describe('Catalog cascades', () => {
  const clock = new ManualClock(new Date('2027-09-01T08:00:00.000Z'));
  let t: TestApp;
  let tenant: TestTenant;
  let api: CatalogClient;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
    api = new CatalogClient(t, tenant.auth);
  });
  afterAll(() => t.close());

  async function run(id: string): Promise<any> {
    const response = await api.get(`/v1/cascade_runs/${id}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  async function tasks(id: string): Promise<any[]> {
    const response = await api.get(`/v1/cascade_runs/${id}/tasks?limit=200`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  async function revisionId(costId: string, revision: number): Promise<string> {
    const [row] = await db.query(`SELECT id FROM cost_revisions WHERE cost_id = $1 AND revision_no = $2`, [costId, revision]);
    return row.id;
  }

  /** Every version row of the tenant's products, for "nothing changed". */
  async function allVersions(): Promise<unknown[]> {
    return db.query(
      `SELECT id, product_id, version, status, archived_reason, unit_price::text FROM product_versions WHERE organization_id = $1 ORDER BY id`,
      [tenant.organization_id],
    );
  }

  it('republishes every consumer of a value effective now, transitive use included; progress counts add up; reruns publish nothing twice', async () => {
    const fee = await api.orgCost('cas_fee', { amount: '10' });
    await api.orgCost('cas_double', { expression: 'cas_fee * 2' });
    const direct = await api.liveProduct('cas_fee + 1');
    const transitive = await api.liveProduct('cas_double');
    const bystander = await api.liveProduct('3');
    const neverPublished = await api.product({ name: 'Unpublished', price_expression: 'cas_fee' });
    const archived = await api.liveProduct('cas_fee * 3');
    expect((await api.patch(`/v1/products/${archived.id}`, { status: 'archived' })).status).toBe(200);
    const consumers = await api.get(`/v1/costs/${fee.id}/consumers`);
    expect(consumers.body.data.map((row: any) => row.product_id).sort()).toEqual([direct.id, transitive.id].sort());

    clock.advance(1000);
    const saved = await api.patch(`/v1/costs/${fee.id}`, { amount: '20' });
    expect(saved.status).toBe(200);
    const runId = saved.body.cascade_run_id;
    expect(await run(runId)).toMatchObject({
      object: 'cascade_run',
      id: runId,
      trigger: 'cost_value',
      source: { entity_type: 'cost', entity_id: fee.id, version_id: await revisionId(fee.id, 2), version: 2 },
      status: 'pending',
      effective_at: clock.now().toISOString(),
      counts: { total: 0, pending: 0, republished: 0, unchanged: 0, errored: 0 },
      started_at: null,
      completed_at: null,
    });
    // A product going live after the save resolves the new value already: its task ends unchanged.
    const late = await api.liveProduct('cas_fee * 5');
    expect(late.unit_price).toBe('100');

    clock.advance(1000);
    await drainCascades(t);
    const done = await run(runId);
    expect(done).toMatchObject({
      status: 'completed',
      counts: { total: 3, pending: 0, republished: 2, unchanged: 1, errored: 0 },
      started_at: clock.now().toISOString(),
      completed_at: clock.now().toISOString(),
    });
    const byProduct = Object.fromEntries((await tasks(runId)).map((task) => [task.subject_id, task]));
    expect(Object.keys(byProduct).sort()).toEqual([direct.id, transitive.id, late.id].sort());
    expect(byProduct[late.id]).toMatchObject({
      status: 'unchanged',
      result_version: { id: late.live_version.id, version: 1 },
      error: null,
    });
    for (const product of [direct, transitive]) {
      expect(byProduct[product.id]).toMatchObject({
        subject_kind: 'product',
        status: 'republished',
        result_version: { version: 2 },
        attempts: 0,
      });
      const [v2, v1] = await versionsOf(api, product.id);
      expect(v2).toMatchObject({
        id: byProduct[product.id].result_version.id,
        version: 2,
        status: 'published',
        origin: 'cascade',
        base_version_id: v1.id,
        effective_from: clock.now().toISOString(),
        cascade_source: { entity_type: 'cost', entity_id: fee.id, version_id: await revisionId(fee.id, 2), version: 2 },
        created_by: { type: 'api_key', id: tenant.api_key.id, via: 'cascade' },
        price_expression: v1.price_expression,
      });
      expect(v2.costs.find((row: any) => row.key === 'cas_fee')).toMatchObject({ cost_id: fee.id, revision: 2, value: '20' });
      expect(v1).toMatchObject({ status: 'archived', archived_reason: 'superseded', effective_to: clock.now().toISOString() });
    }
    expect((await productOf(api, direct.id)).unit_price).toBe('21');
    expect((await productOf(api, transitive.id)).unit_price).toBe('40');
    expect(await versionsOf(api, bystander.id)).toHaveLength(1);
    expect((await productOf(api, archived.id)).unit_price).toBe('30');
    expect((await productOf(api, neverPublished.id)).live_version).toBeNull();

    // Rerunning the run and every task publishes nothing more.
    const before = await allVersions();
    const cascades = t.app.get(CostCascades);
    const job = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, runId };
    await cascades.expand(job);
    for (const productId of Object.keys(byProduct)) await cascades.runTask({ ...job, productId });
    expect(await allVersions()).toEqual(before);
    expect((await run(runId)).counts).toEqual(done.counts);
  });

  it('republishes at a future effective_at, not before; the new version resolves the revision in effect then', async () => {
    const price = await api.orgCost('cas_future', { amount: '1.50' });
    const product = await api.liveProduct('cas_future * 2');
    const at = new Date(clock.now().getTime() + 2 * HOUR);
    const saved = await api.patch(`/v1/costs/${price.id}`, { amount: '2.50', effective_at: at.toISOString() });
    expect(saved.body).toMatchObject({ amount: '1.50', pending_value: { amount: '2.50', effective_at: at.toISOString() } });
    expect(await run(saved.body.cascade_run_id)).toMatchObject({ status: 'pending', effective_at: at.toISOString() });

    clock.advance(HOUR);
    await drainCascades(t);
    expect(await run(saved.body.cascade_run_id)).toMatchObject({ status: 'pending', counts: { total: 0 } });
    expect((await productOf(api, product.id)).unit_price).toBe('3');

    clock.set(at);
    await drainCascades(t);
    expect(await run(saved.body.cascade_run_id)).toMatchObject({ status: 'completed', counts: { total: 1, republished: 1 } });
    const [v2] = await versionsOf(api, product.id);
    expect(v2).toMatchObject({ version: 2, origin: 'cascade', effective_from: at.toISOString(), unit_price: '5' });
    expect(v2.costs).toEqual([expect.objectContaining({ key: 'cas_future', revision: 2, value: '2.5' })]);
  });

  it('retire: a product still needing the key gets an errored version and keeps billing; a product shadowing the key is untouched', async () => {
    const retiring = await api.orgCost('cas_retired', { amount: '4' });
    const needs = await api.liveProduct('cas_retired * 2');
    const shadowing = await api.product({ name: 'Shadowing' });
    await api.productCost(shadowing.id, 'cas_retired', { amount: '100' });
    await api.patch(`/v1/products/${shadowing.id}`, { price_expression: 'cas_retired + 1' });
    await api.publish(shadowing.id);
    const shadowHead = (await productOf(api, shadowing.id)).live_version;

    clock.advance(1000);
    expect((await api.delete(`/v1/costs/${retiring.id}`)).status).toBe(204);
    const [{ id: runId }] = await db.query(`SELECT id FROM cascade_runs WHERE source_id = $1`, [retiring.id]);
    await drainCascades(t);
    expect(await run(runId)).toMatchObject({
      trigger: 'cost_retire',
      status: 'completed',
      source: { entity_id: retiring.id, version: 2 },
      counts: { total: 1, republished: 0, unchanged: 0, errored: 1, pending: 0 },
    });
    const [task] = await tasks(runId);
    expect(task).toMatchObject({
      subject_id: needs.id,
      status: 'errored',
      result_version: { version: 2 },
      error: {
        code: 'PUBLISH_FORMULA_INVALID',
        message: expect.stringContaining('cas_retired'),
        details: { reason: 'unknown_key', keys: ['cas_retired'], retired_keys: ['cas_retired'] },
      },
    });
    const [errored, head] = await versionsOf(api, needs.id);
    expect(errored).toMatchObject({
      id: task.result_version.id,
      version: 2,
      status: 'archived',
      archived_reason: 'errored',
      origin: 'cascade',
      cascade_source: { entity_type: 'cost', entity_id: retiring.id, version: 2 },
      error: {
        code: 'PUBLISH_FORMULA_INVALID',
        message: expect.any(String),
        details: { reason: 'unknown_key', keys: ['cas_retired'], retired_keys: ['cas_retired'] },
      },
    });
    expect(head).toMatchObject({ version: 1, status: 'published', unit_price: '8' });
    expect(await productOf(api, needs.id)).toMatchObject({ unit_price: '8', version: 1 });
    // The retired cost's consumers still show who bills on it.
    expect((await api.get(`/v1/costs/${retiring.id}/consumers`)).body.data).toEqual([
      { product_id: needs.id, product_version_id: head.id, version: 1 },
    ]);
    expect((await productOf(api, shadowing.id)).live_version).toEqual(shadowHead);
    expect((await productOf(api, shadowing.id)).unit_price).toBe('101');
  });

  it('a release queued before a cascade fires later as a whole snapshot, resolving the ORG values in effect at its scheduled_for', async () => {
    const fee = await api.orgCost('cas_queued', { amount: '1' });
    const product = await api.liveProduct('cas_queued * 10');
    await api.patch(`/v1/products/${product.id}`, { price_expression: 'cas_queued * 100' });
    const releaseAt = new Date(clock.now().getTime() + HOUR);
    const release = await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'product',
      subject_id: product.id,
      staged_version_id: (await productOf(api, product.id)).draft_version.id,
      scheduled_for: releaseAt.toISOString(),
    });
    expect(release.status).toBe(201);
    clock.advance(1000);
    expect((await api.patch(`/v1/costs/${fee.id}`, { amount: '2' })).status).toBe(200);
    await drainCascades(t);
    expect(await productOf(api, product.id)).toMatchObject({ version: 3, unit_price: '20' });
    clock.set(releaseAt);
    // A command catches the release up.
    expect((await api.patch(`/v1/products/${product.id}`, { description: 'after the release' })).status).toBe(200);
    const versions = await versionsOf(api, product.id);
    expect(versions.map((row) => [row.version, row.status, row.origin, row.unit_price])).toEqual([
      [3, 'archived', 'cascade', '20'],
      [2, 'published', 'scheduled_release', '200'],
      [1, 'archived', 'manual', '10'],
    ]);
    expect(versions[1]).toMatchObject({
      effective_from: releaseAt.toISOString(),
      costs: [expect.objectContaining({ revision: 2, value: '2' })],
    });
    expect(versions[0]).toMatchObject({ effective_to: releaseAt.toISOString() });
  });

  it('a cascade (published or errored) while a draft is open takes the next number; the draft moves up', async () => {
    const rate = await api.orgCost('cas_draft_rate', { amount: '1' });
    const gone = await api.orgCost('cas_draft_gone', { amount: '1' });
    const product = await api.liveProduct('cas_draft_rate + cas_draft_gone');
    const draft = (await api.patch(`/v1/products/${product.id}`, { price_expression: 'cas_draft_rate * 10' })).body.draft_version;
    expect(draft.version).toBe(2);

    expect((await api.patch(`/v1/costs/${rate.id}`, { amount: '2' })).status).toBe(200);
    await drainCascades(t);
    expect((await productOf(api, product.id)).draft_version).toEqual({ id: draft.id, version: 3 });

    expect((await api.delete(`/v1/costs/${gone.id}`)).status).toBe(204);
    await drainCascades(t);
    const versions = await versionsOf(api, product.id);
    expect(versions.map((row) => [row.version, row.status, row.archived_reason, row.origin])).toEqual([
      [4, 'draft', null, null],
      [3, 'archived', 'errored', 'cascade'],
      [2, 'published', null, 'cascade'],
      [1, 'archived', 'superseded', 'manual'],
    ]);
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM cascade_tasks WHERE status = 'pending'`);
    expect(count).toBe(0);
    // The draft (which no longer needs the retired key) publishes as the next number.
    const published = await api.publish(product.id);
    expect(published.result).toEqual({ id: draft.id, version: 4 });
    expect((await productOf(api, product.id)).unit_price).toBe('20');
  });
});
