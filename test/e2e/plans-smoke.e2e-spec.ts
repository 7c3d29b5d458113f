import { CatalogClient } from '../support/catalog-helpers';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

describe('Plans smoke: create → memberships → publish → versions', () => {
  let t: TestApp;
  let api: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp();
    api = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  it('publishes a plan whose memberships resolve to the products’ live versions', async () => {
    await api.orgCost('seat', { amount: '10' });
    const product = await api.liveProduct('seat * 2');
    const created = await api.post('/v1/plans', { name: 'Growth', price_cadence_unit: 'year', tags: ['smb'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'plan',
      status: 'draft',
      version: 1,
      price_cadence_unit: 'year',
      live_version: null,
      products: [],
    });
    const plan = created.body;
    const added = await api.post(`/v1/plans/${plan.id}/products`, {
      product_id: product.id,
      included_quantity: '100',
      refresh_unit: 'month',
    });
    expect(added.status).toBe(201);
    expect(added.body.products).toEqual([
      expect.objectContaining({
        product_id: product.id,
        allowance_kind: 'REFRESHING',
        refresh_count: 1,
        product_track_mode: 'latest',
        product_version_id: null,
      }),
    ]);
    const draft = await api.get(`/v1/plans/${plan.id}/draft`);
    expect(draft.status).toBe(200);
    expect(draft.body.summary.products_added).toEqual([product.id]);
    const change = await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'plan',
      subject_id: plan.id,
      staged_version_id: draft.body.id,
      release_name: 'launch',
    });
    expect(change.status).toBe(201);
    expect(change.body).toMatchObject({ status: 'applied', result: { version: 1 } });
    const live = await api.get(`/v1/plans/${plan.id}`);
    expect(live.body).toMatchObject({
      status: 'active',
      version: 1,
      draft_version: null,
      live_version: { id: draft.body.id, version: 1 },
    });
    expect(live.body.products[0]).toMatchObject({
      product_id: product.id,
      product_version_id: product.live_version.id,
      product_version: 1,
    });
    const versions = await api.get(`/v1/plans/${plan.id}/versions?include=usage_count`);
    expect(versions.body.data).toEqual([
      expect.objectContaining({ version: 1, status: 'published', origin: 'manual', release_name: 'launch', usage_count: 1 }),
    ]);
    const stale = await api.patch(`/v1/plans/${plan.id}`, { name: 'Growth+', expected_version: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'CONFLICT', details: { current_version: 1 } });
    const controls = await api.patch(`/v1/plans/${plan.id}`, { publish_now: true });
    expect(controls.body.error).toMatchObject({ code: 'FIELD_NOT_ALLOWED', param: 'publish_now' });
    const copy = await api.post(`/v1/plans/${plan.id}/copy`, {});
    expect(copy.body).toMatchObject({
      name: 'Growth (Copy)',
      status: 'draft',
      version: 1,
      products: [expect.objectContaining({ product_id: product.id })],
    });
  });
});
