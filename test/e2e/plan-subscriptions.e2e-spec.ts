import { randomUUID } from 'node:crypto';
import { expectError } from '../support/auth-helpers';
import { CatalogClient } from '../support/catalog-helpers';
import { SubscriptionClient } from '../support/subscription-helpers';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

describe('Subscriptions (minimal): create on a live version, read, list, cancel', () => {
  let t: TestApp;
  let api: SubscriptionClient;
  let stranger: SubscriptionClient;
  let customer: string;
  let planId: string;
  let productId: string;
  let otherProduct: any;
  let liveVersion: { id: string; version: number };

  beforeAll(async () => {
    t = await createTestApp();
    const tenant = await createTenant(t);
    api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
    const other = await createTenant(t);
    stranger = new SubscriptionClient(new CatalogClient(t, other.auth), other);
    await api.orgCost('seat', { amount: '10' });
    const product = await api.liveProduct('seat * 2');
    productId = product.id;
    otherProduct = await api.liveProduct('seat * 3');
    planId = await api.plan([productId]);
    await api.publishPlan(planId);
    liveVersion = (await api.get(`/v1/plans/${planId}`)).body.live_version;
    customer = await api.customer();
  });
  afterAll(() => t.close());

  it('creates a subscription on the live version with the defaults: pinned, next_period, the version’s cadence, one period', async () => {
    const response = await api.post('/v1/subscriptions', {
      customer_id: customer,
      plan_id: planId,
      current_period_start: '2026-01-31T09:00:00Z',
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe(`/v1/subscriptions/${response.body.id}`);
    expect(response.body).toEqual({
      object: 'subscription',
      id: expect.any(String),
      customer_id: customer,
      plan_id: planId,
      plan_version: { id: liveVersion.id, version: 1 },
      status: 'active',
      billing_cadence: 'month',
      plan_track_mode: 'pinned',
      version_change_strategy: 'next_period',
      product_pins: [],
      holds_pin: true,
      // One month on, clamped to February's last day.
      current_period_start: '2026-01-31T09:00:00.000Z',
      current_period_end: '2026-02-28T09:00:00.000Z',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      canceled_at: null,
    });
    expect((await api.get(`/v1/subscriptions/${response.body.id}`)).body).toEqual(response.body);
  });

  it('takes an explicit version, cadence, tracking mode, strategy and product pins', async () => {
    const body = await api.subscribe({
      customer_id: customer,
      plan_id: planId,
      plan_version: 1,
      billing_cadence: 'month',
      plan_track_mode: 'latest',
      version_change_strategy: 'immediate',
      product_pins: [
        { product_id: productId, product_version_id: (await api.get(`/v1/products/${productId}`)).body.live_version.id },
      ],
    });
    expect(body).toMatchObject({
      plan_track_mode: 'latest',
      version_change_strategy: 'immediate',
      holds_pin: true,
      product_pins: [{ product_id: productId }],
    });
    const tracking = await api.subscribe({ customer_id: customer, plan_id: planId, plan_track_mode: 'latest' });
    expect(tracking).toMatchObject({ holds_pin: false, product_pins: [] });
  });

  it('refuses what cannot be subscribed, and stores nothing', async () => {
    const before = (await api.get(`/v1/subscriptions?plan_id=${planId}&limit=200`)).body.data.length;
    const base = { customer_id: customer, plan_id: planId };
    expectError(await api.post('/v1/subscriptions', { ...base, customer_id: randomUUID() }), 404, 'CUSTOMER_NOT_FOUND');
    expectError(await api.post('/v1/subscriptions', { ...base, plan_id: randomUUID() }), 404, 'PLAN_NOT_FOUND');
    expectError(await api.post('/v1/subscriptions', { ...base, plan_version: 7 }), 409, 'PLAN_VERSION_NOT_LIVE');
    const draftOnly = await api.plan([productId], { name: 'Never published' });
    expectError(await api.post('/v1/subscriptions', { ...base, plan_id: draftOnly }), 409, 'PLAN_VERSION_NOT_LIVE');
    // Version 2 exists as the working draft, but never went live.
    await api.patch(`/v1/plans/${planId}/products/${productId}`, { included_quantity: '150' });
    expectError(await api.post('/v1/subscriptions', { ...base, plan_version: 2 }), 409, 'PLAN_VERSION_NOT_LIVE');
    await api.delete(`/v1/plans/${planId}/draft`);
    const cadence = await api.post('/v1/subscriptions', { ...base, billing_cadence: 'year' });
    expectError(cadence, 422, 'BILLING_CADENCE_MISMATCH');
    expect(cadence.body.error.details).toEqual({ billing_cadence: 'year', price_cadence_unit: 'month' });
    const offPlan = await api.post('/v1/subscriptions', {
      ...base,
      product_pins: [{ product_id: otherProduct.id, product_version_id: otherProduct.live_version.id }],
    });
    expectError(offPlan, 422, 'INVALID_PIN');
    const wrongVersion = await api.post('/v1/subscriptions', {
      ...base,
      product_pins: [{ product_id: productId, product_version_id: otherProduct.live_version.id }],
    });
    expectError(wrongVersion, 422, 'INVALID_PIN');
    const pin = { product_id: productId, product_version_id: (await api.get(`/v1/products/${productId}`)).body.live_version.id };
    expectError(await api.post('/v1/subscriptions', { ...base, product_pins: [pin, pin] }), 400, 'VALIDATION_ERROR');
    for (const bad of [
      { plan_track_mode: 'sometimes' },
      { version_change_strategy: 'later' },
      { billing_cadence: 'day' },
      { plan_version: 0 },
      { plan_version: '1' },
      { current_period_start: '2026-01-01' },
      { customer_id: 'not-a-uuid' },
      { status: 'canceled' },
    ]) {
      expectError(await api.post('/v1/subscriptions', { ...base, ...bad }), 400, 'VALIDATION_ERROR');
    }
    // A period must start where its end is still an RFC 3339 instant the service represents (issue 19, item 7).
    for (const [start, code] of [
      ['0001-01-01T00:00:00Z', 'OUT_OF_RANGE'],
      ['1969-12-31T23:59:59Z', 'OUT_OF_RANGE'],
      ['9999-12-31T00:00:00Z', 'OUT_OF_RANGE'],
      ['2026-02-30T00:00:00Z', 'INVALID_VALUE'],
    ]) {
      const refused = await api.post('/v1/subscriptions', { ...base, current_period_start: start });
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.errors).toEqual([expect.objectContaining({ param: 'current_period_start', code })]);
    }
    await api.patch(`/v1/plans/${draftOnly}`, { status: 'archived' });
    const archived = await api.plan([productId], { name: 'Archived' });
    await api.publishPlan(archived);
    await api.patch(`/v1/plans/${archived}`, { status: 'archived' });
    expectError(await api.post('/v1/subscriptions', { ...base, plan_id: archived }), 409, 'ENTITY_ARCHIVED');
    expect((await api.get(`/v1/subscriptions?plan_id=${planId}&limit=200`)).body.data.length).toBe(before);
  });

  it('lists newest first with plan, customer and status filters and signed cursors', async () => {
    const second = await api.customer('Second AG');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await api.subscribe({ customer_id: second, plan_id: planId })).id);
    const page = await api.get(`/v1/subscriptions?customer_id=${second}&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((row: any) => row.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.pagination.has_more).toBe(true);
    const next = await api.get(`/v1/subscriptions?customer_id=${second}&limit=2&cursor=${page.body.pagination.cursor}`);
    expect(next.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], pagination: { cursor: null, has_more: false } });
    // A cursor is bound to its filters.
    expectError(await api.get(`/v1/subscriptions?limit=2&cursor=${page.body.pagination.cursor}`), 400, 'INVALID_CURSOR');
    const canceled = await api.post(`/v1/subscriptions/${ids[1]}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: ids[1], status: 'canceled', canceled_at: expect.any(String) });
    const active = await api.get(`/v1/subscriptions?customer_id=${second}&status=active`);
    expect(active.body.data.map((row: any) => row.id)).toEqual([ids[2], ids[0]]);
    const byPlan = await api.get(`/v1/subscriptions?plan_id=${planId}&status=canceled&customer_id=${second}`);
    expect(byPlan.body.data.map((row: any) => row.id)).toEqual([ids[1]]);
    expectError(await api.get('/v1/subscriptions?status=paused'), 400, 'VALIDATION_ERROR');
    expectError(await api.get('/v1/subscriptions?plan_id=nope'), 400, 'VALIDATION_ERROR');
  });

  it('cancels once: a canceled subscription is terminal (409 INVALID_STATUS_TRANSITION)', async () => {
    const subscription = await api.subscribe({ customer_id: customer, plan_id: planId });
    expect((await api.post(`/v1/subscriptions/${subscription.id}/cancel`)).status).toBe(200);
    const again = await api.post(`/v1/subscriptions/${subscription.id}/cancel`);
    expectError(again, 409, 'INVALID_STATUS_TRANSITION');
    expect(again.body.error.details).toEqual({ from: 'canceled', to: 'canceled', allowed: [] });
    expectError(await api.post(`/v1/subscriptions/${randomUUID()}/cancel`), 404, 'SUBSCRIPTION_NOT_FOUND');
  });

  it('keeps tenants apart: another organization’s customer, plan and subscription are 404 and never listed', async () => {
    const subscription = await api.subscribe({ customer_id: customer, plan_id: planId });
    const theirCustomer = await stranger.customer('Stranger AG');
    expectError(await stranger.get(`/v1/subscriptions/${subscription.id}`), 404, 'SUBSCRIPTION_NOT_FOUND');
    expectError(await stranger.post(`/v1/subscriptions/${subscription.id}/cancel`), 404, 'SUBSCRIPTION_NOT_FOUND');
    expectError(await stranger.post('/v1/subscriptions', { customer_id: theirCustomer, plan_id: planId }), 404, 'PLAN_NOT_FOUND');
    expectError(await api.post('/v1/subscriptions', { customer_id: theirCustomer, plan_id: planId }), 404, 'CUSTOMER_NOT_FOUND');
    expect((await stranger.get('/v1/subscriptions')).body.data).toEqual([]);
    expect((await stranger.get(`/v1/subscriptions?plan_id=${planId}`)).body.data).toEqual([]);
    // The sandbox is another workspace: live subscriptions are not its own.
    const sandbox = await t.http.get(`/v1/subscriptions/${subscription.id}`).set('Authorization', api.tenant.sandboxAuth);
    expectError(sandbox, 404, 'SUBSCRIPTION_NOT_FOUND');
    expect((await api.subscription(subscription.id)).status).toBe('active');
  });
});
