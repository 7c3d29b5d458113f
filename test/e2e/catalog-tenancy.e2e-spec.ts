import { ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { expectError } from '../support/auth-helpers';
import { CatalogClient, changeBody, drainCascades, productOf, scheduleDraft } from '../support/catalog-helpers';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const CATALOG_TABLES = [
  'costs',
  'cost_revisions',
  'products',
  'product_versions',
  'product_version_costs',
  'changes',
  'cascade_runs',
  'cascade_tasks',
];

/**
 * Tenant isolation of the catalog: every id another organization or another workspace of the
 * same organization names — in the path, the body or the query — is answered 404 exactly as
 * an unknown id, changes nothing, and never shows in lists; cost keys resolve per workspace.
 */
describe('Catalog tenancy', () => {
  const clock = new ManualClock(new Date('2027-10-01T08:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let a: TestTenant;
  let owner: CatalogClient;
  /** Organization A's catalog, by what names it. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    a = await createTenant(t);
    owner = new CatalogClient(t, a.auth);
    const fee = await owner.orgCost('tenancy_fee', { amount: '1' });
    const product = await owner.product({ name: 'Tenant A' });
    const own = await owner.productCost(product.id, 'tenancy_own', { amount: '2' });
    await owner.patch(`/v1/products/${product.id}`, { price_expression: 'tenancy_fee + tenancy_own' });
    const applied = await owner.publish(product.id);
    const run = (await owner.patch(`/v1/costs/${fee.id}`, { amount: '3' })).body.cascade_run_id;
    await drainCascades(t);
    await owner.patch(`/v1/products/${product.id}`, { price_expression: 'tenancy_fee * 2' });
    const pending = await scheduleDraft(owner, product.id, new Date(clock.now().getTime() + 3_600_000));
    const draft = (await owner.patch(`/v1/products/${product.id}`, { price_expression: 'tenancy_fee * 4' })).body.draft_version;
    Object.assign(ids, {
      cost: fee.id,
      productCost: own.id,
      product: product.id,
      version: applied.result.id,
      draft: draft.id,
      change: pending.id,
      appliedChange: applied.id,
      run,
    });
  });
  afterAll(() => t.close());

  /** Every catalog route naming one of A's resources, with a body that passes validation. */
  function routes(): Array<{ method: 'get' | 'post' | 'patch' | 'delete'; path: string; body?: object }> {
    return [
      { method: 'get', path: `/v1/costs/${ids.cost}` },
      { method: 'get', path: `/v1/costs/${ids.productCost}` },
      { method: 'patch', path: `/v1/costs/${ids.cost}`, body: { amount: '9' } },
      { method: 'patch', path: `/v1/costs/${ids.productCost}`, body: { description: 'hijacked' } },
      { method: 'delete', path: `/v1/costs/${ids.cost}` },
      { method: 'delete', path: `/v1/costs/${ids.productCost}` },
      { method: 'post', path: `/v1/costs/${ids.cost}/restore`, body: {} },
      { method: 'get', path: `/v1/costs/${ids.cost}/consumers` },
      { method: 'get', path: `/v1/products/${ids.product}` },
      { method: 'patch', path: `/v1/products/${ids.product}`, body: { name: 'hijacked' } },
      { method: 'patch', path: `/v1/products/${ids.product}`, body: { status: 'archived' } },
      { method: 'get', path: `/v1/products/${ids.product}/versions` },
      { method: 'get', path: `/v1/products/${ids.product}/draft` },
      { method: 'post', path: `/v1/products/${ids.product}/draft`, body: {} },
      { method: 'delete', path: `/v1/products/${ids.product}/draft` },
      { method: 'get', path: `/v1/products/${ids.product}/costs` },
      { method: 'get', path: `/v1/products/${ids.product}/costs?view=draft` },
      { method: 'get', path: `/v1/products/${ids.product}/costs?product_version_id=${ids.version}` },
      { method: 'post', path: `/v1/products/${ids.product}/costs`, body: { key: 'hijack', amount: '1' } },
      { method: 'post', path: '/v1/changes', body: changeBody(ids.product, ids.draft) },
      {
        method: 'post',
        path: '/v1/changes',
        body: changeBody(ids.product, ids.draft, { scheduled_for: '2099-01-01T00:00:00Z' }),
      },
      { method: 'get', path: `/v1/changes/${ids.change}` },
      { method: 'get', path: `/v1/changes/${ids.appliedChange}` },
      { method: 'post', path: `/v1/changes/${ids.change}/cancel`, body: {} },
      { method: 'get', path: `/v1/cascade_runs/${ids.run}` },
      { method: 'get', path: `/v1/cascade_runs/${ids.run}/tasks` },
    ];
  }

  function call(route: ReturnType<typeof routes>[number], auth: string, workspace?: string) {
    let request = t.http[route.method](route.path).set('Authorization', auth).set('Idempotency-Key', idem());
    if (workspace) request = request.set('X-Workspace-Id', workspace);
    return route.body ? request.send(route.body) : request;
  }

  /** The same route with every one of A's ids replaced by one nobody has. */
  function unknownVariant(route: ReturnType<typeof routes>[number]) {
    const unknown = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
    const swap = (text: string) => Object.values(ids).reduce((acc, id) => acc.split(id).join(unknown), text);
    return { ...route, path: swap(route.path), body: route.body && JSON.parse(swap(JSON.stringify(route.body))) };
  }

  async function digest(): Promise<Record<string, string>> {
    const result: Record<string, string> = {};
    for (const table of CATALOG_TABLES) {
      const [{ hash }] = await db.query(
        `SELECT md5(coalesce(string_agg(to_jsonb(x)::text, ',' ORDER BY to_jsonb(x)::text), '')) AS hash FROM ${table} x WHERE organization_id = $1`,
        [a.organization_id],
      );
      result[table] = hash;
    }
    return result;
  }

  async function expectEveryRouteNotFound(auth: string, workspace?: string): Promise<void> {
    const before = await digest();
    const seen: string[] = [];
    for (const route of routes()) {
      const foreign = await call(route, auth, workspace);
      const unknown = await call(unknownVariant(route), auth, workspace);
      const label = `${route.method.toUpperCase()} ${route.path}`;
      expect({ label, status: foreign.status, code: foreign.body?.error?.code }).toEqual({
        label,
        status: unknown.status,
        code: unknown.body?.error?.code,
      });
      expect({ label, status: foreign.status }).toEqual({ label, status: 404 });
      expect(foreign.body.error.code).toMatch(/_NOT_FOUND$/);
      seen.push(label);
    }
    expect(seen).toHaveLength(routes().length);
    expect(await digest()).toEqual(before);
  }

  it('answers another organization 404 on every catalog route naming A’s resources, and changes nothing', async () => {
    const b = await createTenant(t);
    await expectEveryRouteNotFound(b.auth);
  });

  it('answers another workspace of the same organization (and its sandbox key) 404 the same way', async () => {
    const second = await t.http
      .post('/v1/workspaces')
      .set('Authorization', a.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Second live', slug: 'catalog-second', mode: 'live' });
    expect(second.status).toBe(201);
    await expectEveryRouteNotFound(a.auth, 'catalog-second');
    await expectEveryRouteNotFound(a.sandboxAuth);
  });

  it('refuses A’s ids in B’s bodies and queries: subject, staged version, base version, product version', async () => {
    const b = new CatalogClient(t, (await createTenant(t)).auth);
    const mine = await b.product({ name: 'Tenant B', price_expression: '1' });
    const before = await digest();
    expectError(await b.post('/v1/changes', changeBody(mine.id, ids.draft)), 404, 'VERSION_NOT_FOUND');
    expectError(await b.post('/v1/changes', changeBody(ids.product, mine.draft_version.id)), 404, 'PRODUCT_NOT_FOUND');
    expectError(await b.post(`/v1/products/${mine.id}/draft`, { base_version_id: ids.version }), 404, 'VERSION_NOT_FOUND');
    expectError(await b.get(`/v1/products/${mine.id}/costs?product_version_id=${ids.version}`), 404, 'VERSION_NOT_FOUND');
    expect(await digest()).toEqual(before);
    expect((await productOf(b, mine.id)).status).toBe('draft');
  });

  it('shows none of A’s catalog in another tenant’s lists', async () => {
    const b = new CatalogClient(t, (await createTenant(t)).auth);
    await b.orgCost('tenancy_fee', { amount: '100' });
    const product = await b.liveProduct('tenancy_fee');
    const text = [
      (await b.get('/v1/costs?limit=200')).text,
      (await b.get('/v1/costs?scope=PRODUCT&limit=200')).text,
      (await b.get('/v1/products?limit=200')).text,
      (await b.get(`/v1/products/${product.id}/versions`)).text,
      (await b.get(`/v1/products/${product.id}/costs?product_version_id=${product.live_version.id}`)).text,
    ].join('\n');
    for (const id of Object.values(ids)) expect(text).not.toContain(id);
    // Same key, other organization: B's product resolved B's cost.
    expect(product.unit_price).toBe('100');
  });

  it('resolves cost keys per workspace: a sandbox product never consumes the live cost of the same key', async () => {
    const sandbox = new CatalogClient(t, a.sandboxAuth);
    const sandboxFee = await sandbox.orgCost('tenancy_fee', { amount: '50' });
    const sandboxProduct = await sandbox.liveProduct('tenancy_fee');
    expect(sandboxProduct.unit_price).toBe('50');
    const consumers = (await owner.get(`/v1/costs/${ids.cost}/consumers`)).body.data.map((row: any) => row.product_id);
    expect(consumers).toEqual([ids.product]);
    expect((await owner.patch(`/v1/costs/${ids.cost}`, { amount: '4' })).status).toBe(200);
    await drainCascades(t);
    expect((await productOf(sandbox, sandboxProduct.id)).unit_price).toBe('50');
    expect((await sandbox.get(`/v1/costs/${sandboxFee.id}`)).body.amount).toBe('50');
    expect((await productOf(owner, ids.product)).unit_price).toBe('6');
  });
});
