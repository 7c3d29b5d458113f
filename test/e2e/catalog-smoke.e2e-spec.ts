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
    expect(fee).toMatchObject({ object: 'cost', key: 'platform_fee', scope: 'ORG', amount: '10.00', value: '10.00', status: 'active' });
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
