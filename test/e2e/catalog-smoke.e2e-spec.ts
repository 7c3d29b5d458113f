import { CatalogClient, drainCascades } from '../support/catalog-helpers';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

describe('Catalog smoke: cost → product → publish → cascade', () => {
  let t: TestApp;
  let api: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp();
    api = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  it('publishes a product priced by a formula and republishes it when an ORG cost changes', async () => {
    const fee = await api.orgCost('platform_fee', { amount: '10.00' });
    expect(fee).toMatchObject({
      object: 'cost',
      key: 'platform_fee',
      scope: 'ORG',
      amount: '10.00',
      value: '10.00',
      status: 'active',
    });
    const product = await api.product();
    await api.productCost(product.id, 'setup', { amount: '2' });
    expect((await api.patch(`/v1/products/${product.id}`, { price_expression: 'platform_fee * 1.5 + setup' })).status).toBe(200);
    const change = await api.publish(product.id, { release_name: 'first' });
    expect(change).toMatchObject({ status: 'applied', result: { version: 1 } });
    const live = await api.get(`/v1/products/${product.id}`);
    expect(live.body).toMatchObject({ status: 'active', unit_price: '17', version: 1, draft_version: null });
    const consumers = await api.get(`/v1/costs/${fee.id}/consumers`);
    expect(consumers.body.data).toEqual([{ product_id: product.id, product_version_id: live.body.live_version.id, version: 1 }]);

    const updated = await api.patch(`/v1/costs/${fee.id}`, { amount: '20.00' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ amount: '20.00', revision: 2 });
    await drainCascades(t);
    const after = await api.get(`/v1/products/${product.id}`);
    expect(after.body).toMatchObject({ unit_price: '32', version: 2 });
    const versions = await api.get(`/v1/products/${product.id}/versions`);
    expect(versions.body.data.map((v: any) => [v.version, v.status, v.origin])).toEqual([
      [2, 'published', 'cascade'],
      [1, 'archived', 'manual'],
    ]);
    const run = await api.get(`/v1/cascade_runs/${updated.body.cascade_run_id}`);
    expect(run.body).toMatchObject({ status: 'completed', counts: { total: 1, republished: 1, pending: 0 } });
  });
});

describe('Catalog smoke: evaluate and explain', () => {
  let t: TestApp;
  let api: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp();
    api = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  it('explains a formula with the revision of each key, what-if values, and previews a cascade', async () => {
    const base = await api.orgCost('base', { amount: '10' });
    await api.orgCost('uplift', { expression: 'base * 0.1' });
    const explained = await t.http
      .post('/v1/costs/evaluate')
      .set('Authorization', api.auth)
      .send({ expression: 'round(base + uplift, 2)' });
    expect(explained.status).toBe(200);
    expect(explained.body).toMatchObject({ object: 'formula_evaluation', value: '11' });
    expect(explained.body.references).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'base', cost_id: base.id, scope: 'ORG', revision: 1, value: '10' }),
        expect.objectContaining({ key: 'uplift', scope: 'ORG', value: '1', expression: 'base * 0.1' }),
      ]),
    );
    const whatIf = await api.post('/v1/costs/evaluate', { expression: 'base + uplift', values: { base: '20' } });
    expect(whatIf.body.value).toBe('21');

    const product = await api.liveProduct('base * 2');
    const preview = await api.post('/v1/costs/evaluate', { cost_id: base.id, amount: '15' });
    expect(preview.status).toBe(200);
    expect(preview.body.consumers).toEqual([
      { product_id: product.id, version: 1, unit_price_before: '20', unit_price_after: '30', error: null },
    ]);
  });
});
