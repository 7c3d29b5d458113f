import fc from 'fast-check';
import {
  anyLimit,
  BAD_INPUT_RUNS,
  badBoolean,
  badCursor,
  badInputSeed,
  badTimestamp,
  badUuid,
  BadQueryRoute,
  expectEveryBadQueryAnswered,
  Ids,
} from '../support/bad-input';
import { CatalogClient, scheduleDraft } from '../support/catalog-helpers';
import { livePlan } from '../support/plan-helpers';
import { SubscriptionClient } from '../support/subscription-helpers';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { seedVerification } from '../support/verification-helpers';
import { WalletClient } from '../support/wallet-helpers';

/**
 * R8 for query strings and path ids of the GET routes: one defect per request (an unknown
 * parameter, a value the parameter refuses, a repeated parameter, another tenant's id). The
 * seed is printed; SEED=<n> replays a run, BAD_INPUT_RUNS=<n> sizes it.
 */
const seed = badInputSeed();
const page = { cursor: badCursor };
const tolerated = { limit: anyLimit };

const ROUTES: BadQueryRoute[] = [
  {
    name: 'wallets',
    path: () => '/v1/wallets',
    refused: {
      ...page,
      customer_id: badUuid,
      is_primary: badBoolean,
      auto_topup_enabled: badBoolean,
      created_after: badTimestamp,
      created_before: badTimestamp,
    },
    tolerated: { ...tolerated, currency: fc.stringMatching(/^[A-Za-z0-9,]{0,12}$/) },
  },
  { name: 'wallet', path: (ids) => `/v1/wallets/${ids.wallet}`, refused: {} },
  { name: 'transactions', path: (ids) => `/v1/wallets/${ids.wallet}/transactions`, refused: page, tolerated },
  { name: 'holds', path: (ids) => `/v1/wallets/${ids.wallet}/holds`, refused: {} },
  { name: 'hold', path: (ids) => `/v1/wallets/${ids.wallet}/holds/${ids.hold}`, refused: {} },
  { name: 'fx rates', path: () => '/v1/fx_rates', refused: {} },
  { name: 'customers', path: () => '/v1/customers', refused: page, tolerated },
  { name: 'customer', path: (ids) => `/v1/customers/${ids.customer}`, refused: {} },
  {
    name: 'audit events',
    path: () => '/v1/audit_events',
    refused: { ...page, principal_id: badUuid, occurred_after: badTimestamp, occurred_before: badTimestamp },
    tolerated,
  },
  { name: 'api keys', path: () => '/v1/api_keys', refused: page, tolerated },
  { name: 'users', path: () => '/v1/users', refused: page, tolerated },
  { name: 'workspaces', path: () => '/v1/workspaces', refused: page, tolerated },
  { name: 'permissions', path: () => '/v1/permissions', refused: {} },
  {
    name: 'customer verifications',
    path: () => '/v1/customer_verifications',
    refused: {
      ...page,
      customer_id: badUuid,
      status: fc.constantFrom('', 'approved', 'PENDING', 'verified,failed', ' pending'),
      verification_type: fc.constantFrom('', 'passport', 'KYC', 'kyc,kyb'),
      occurred_after: badTimestamp,
      occurred_before: badTimestamp,
    },
    tolerated,
  },
  { name: 'customer verification', path: (ids) => `/v1/customer_verifications/${ids.verification}`, refused: {} },
  {
    name: 'document templates',
    path: () => '/v1/document_templates',
    refused: {
      ...page,
      sort: fc.oneof(
        fc.constantFrom('name', 'updated_at:up', 'created_at', 'UPDATED_AT', ''),
        fc.stringMatching(/^[a-z_:]{1,12}$/),
      ),
      document_type: fc.oneof(fc.constantFrom('receipt', 'INVOICE', '', 'invoice,quote'), fc.stringMatching(/^[a-z]{1,8}$/)),
      status: fc.oneof(fc.constantFrom('deleted', 'ACTIVE', '', 'active,archived'), fc.stringMatching(/^[a-z]{1,8}$/)),
      anchor_key: fc.oneof(fc.constantFrom('invoice.paid', 'invoice', '', 'wallet.*'), fc.stringMatching(/^[a-z.]{1,12}$/)),
      counts: fc.oneof(fc.constantFrom('status', 'document_types', '', 'all'), fc.stringMatching(/^[a-z]{1,8}$/)),
    },
    tolerated,
  },
  { name: 'document template', path: (ids) => `/v1/document_templates/${ids.template}`, refused: {} },
  { name: 'template thumbnail', path: (ids) => `/v1/document_templates/${ids.template}/thumbnail`, refused: {} },
  { name: 'email kinds', path: () => '/v1/document_templates/email_kinds', refused: {} },
  {
    name: 'costs',
    path: () => '/v1/costs',
    refused: { ...page, scope: fc.constantFrom('', 'org', 'BOTH', 'ORG,PRODUCT', 'product') },
    tolerated,
  },
  { name: 'cost', path: (ids) => `/v1/costs/${ids.cost}`, refused: {} },
  { name: 'cost consumers', path: (ids) => `/v1/costs/${ids.cost}/consumers`, refused: page, tolerated },
  { name: 'products', path: () => '/v1/products', refused: page, tolerated },
  { name: 'product', path: (ids) => `/v1/products/${ids.product}`, refused: {} },
  { name: 'product versions', path: (ids) => `/v1/products/${ids.product}/versions`, refused: page, tolerated },
  { name: 'product draft', path: (ids) => `/v1/products/${ids.product}/draft`, refused: {} },
  {
    name: 'product costs',
    path: (ids) => `/v1/products/${ids.product}/costs`,
    refused: { ...page, view: fc.constantFrom('', 'live', 'DRAFT', 'draft,head'), product_version_id: badUuid },
    tolerated,
  },
  { name: 'change', path: (ids) => `/v1/changes/${ids.change}`, refused: {} },
  { name: 'cascade run', path: (ids) => `/v1/cascade_runs/${ids.run}`, refused: {} },
  { name: 'cascade tasks', path: (ids) => `/v1/cascade_runs/${ids.run}/tasks`, refused: page, tolerated },
  { name: 'plan', path: (ids) => `/v1/plans/${ids.plan}`, refused: {} },
  { name: 'plan draft', path: (ids) => `/v1/plans/${ids.plan}/draft`, refused: {} },
  {
    name: 'plan versions',
    path: (ids) => `/v1/plans/${ids.plan}/versions`,
    refused: {
      ...page,
      status: fc.oneof(
        fc.constantFrom('live', 'DRAFT', 'published,gone', ','),
        fc.stringMatching(/^[a-z]{1,10}$/).filter((value) => !['draft', 'scheduled', 'published', 'archived'].includes(value)),
      ),
      archived_reason: fc.constantFrom('', 'expired', 'Superseded', 'canceled,discarded'),
      include: fc.constantFrom('', 'usage', 'usage_count,rank', 'USAGE_COUNT'),
    },
    tolerated,
  },
  { name: 'plan version', path: (ids) => `/v1/plans/${ids.plan}/versions/1`, refused: {} },
  { name: 'publish impact', path: (ids) => `/v1/plans/${ids.plan}/publish_impact`, refused: {} },
  { name: 'publish check', path: (ids) => `/v1/plans/${ids.plan}/publish_check`, refused: { scheduled_for: badTimestamp } },
  { name: 'supersede forecast', path: (ids) => `/v1/plans/${ids.plan}/versions/1/supersede_forecast`, refused: {} },
  {
    name: 'version referrers',
    path: (ids) => `/v1/plans/${ids.plan}/versions/1/referrers`,
    refused: { ...page, type: fc.constantFrom('', 'invoice', 'SUBSCRIPTION', 'subscriptions', 'change,subscription') },
    tolerated,
  },
  { name: 'version usage', path: (ids) => `/v1/plans/${ids.plan}/versions/1/usage`, refused: {} },
  {
    // Its own grammar (model §6): unknown parameters and bad values are INVALID_FILTER, INVALID_SORT or VALIDATION_ERROR.
    name: 'plans',
    path: () => '/v1/plans',
    refused: {
      ...page,
      created_at: badTimestamp,
      'updated_at.gte': badTimestamp,
      'published_at.lt': badTimestamp,
      version: fc.constantFrom('0', '-1', '1.5', 'abc', '', '2147483648', '1e3'),
      'version.gt': fc.constantFrom('0', '99999999999', ' 1'),
      'name.in': fc.constantFrom('', ',', 'a,,b'),
      'name.contains': fc.constant(''),
      'name.starts_with': fc.string({ maxLength: 8 }),
      'custom_fields.bad key': fc.string({ maxLength: 8 }),
      'custom_fields.region.gt': fc.string({ maxLength: 8 }),
      status: fc.oneof(
        fc.constantFrom('', 'live', 'draft,', 'DRAFT'),
        fc.stringMatching(/^[a-z]{1,8}$/).filter((s) => !['draft', 'scheduled', 'active', 'archived'].includes(s)),
      ),
      has_scheduled_version: badBoolean,
      search: fc.constantFrom('', '   ', 'x'.repeat(201)),
      sort: fc.oneof(
        fc.constantFrom('version', 'name:up', '', 'NAME', 'created_at:DESC'),
        fc
          .stringMatching(/^[a-z_]{1,12}:[a-z]{1,5}$/)
          .filter((s) => !/^(created_at|name|status|description):(asc|desc)$/.test(s)),
      ),
      counts: fc.constantFrom('', 'tags', 'version', 'status,name'),
      tag: fc.constant(''),
    },
    tolerated: {
      ...tolerated,
      'name.contains': fc.string({ minLength: 1, maxLength: 20 }),
      'custom_fields.region': fc.string({ minLength: 1, maxLength: 20 }),
    },
  },
  {
    name: 'subscriptions',
    path: () => '/v1/subscriptions',
    refused: {
      ...page,
      plan_id: badUuid,
      customer_id: badUuid,
      status: fc.constantFrom('paused', 'ACTIVE', '', 'active,canceled'),
    },
    tolerated,
  },
  { name: 'subscription', path: (ids) => `/v1/subscriptions/${ids.subscription}`, refused: {} },
  { name: 'migration', path: (ids) => `/v1/migrations/${ids.migration}`, refused: {} },
  {
    name: 'migration outcomes',
    path: (ids) => `/v1/migrations/${ids.migration}/outcomes`,
    refused: { ...page, status: fc.constantFrom('done', 'MOVED', '', 'moved,skipped') },
    tolerated,
  },
];

describe('GET routes under generated bad query strings and ids (R8)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    const api = new WalletClient(t, tenant.auth);
    const { customer, wallet } = await api.customerWithWallet('EUR', 'Queried GmbH');
    await api.ok(wallet.id, 'credit', { amount: '10.00' });
    const hold = await api.post(`/v1/wallets/${wallet.id}/holds`, { amount: '1.00' });
    expect(hold.status).toBe(201);
    const verification = await seedVerification(t, tenant, tenant.liveWorkspaceId, customer.id);
    const template = await api.post('/v1/document_templates', { name: 'Queried layout' });
    expect(template.status).toBe(201);
    const catalog = new CatalogClient(t, tenant.auth);
    const cost = await catalog.orgCost('queried_fee', { amount: '1' });
    const product = await catalog.liveProduct('queried_fee');
    const run = (await catalog.patch(`/v1/costs/${cost.id}`, { amount: '2' })).body.cascade_run_id;
    await catalog.patch(`/v1/products/${product.id}`, { price_expression: 'queried_fee * 2' });
    const change = await scheduleDraft(catalog, product.id, new Date('2099-01-01T00:00:00Z'));
    await catalog.post(`/v1/products/${product.id}/draft`);
    const { plan } = await livePlan(catalog);
    ids = {
      wallet: wallet.id,
      hold: hold.body.id,
      customer: customer.id,
      verification,
      template: template.body.id,
      cost: cost.id,
      product: product.id,
      change: change.id,
      run,
      plan: plan.id,
      ...(await subscriptionIds(t, tenant, customer.id)),
    };
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx (never a 5xx) (SEED printed)`, async () => {
    console.log(`query bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    const stranger = await createTenant(t);
    const foreignId = (await new WalletClient(t, stranger.auth).customerWithWallet('EUR', 'Stranger AG')).wallet.id;
    await expectEveryBadQueryAnswered(t, { auth: tenant.auth, routes: ROUTES, ids, foreignId, seed, runs: BAD_INPUT_RUNS });
    // About 9,000 requests (300 per route, since issue 19 with NUL and backtracking-shaped values
    // among them): ~100 s on an idle 2-core machine, so the global 120 s leaves no margin.
  }, 300_000);
});

/** A subscription and a (scheduled) migration of a live plan, for the subscription and migration reads. */
async function subscriptionIds(t: TestApp, tenant: TestTenant, customer: string): Promise<Ids> {
  const api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
  await api.orgCost('seat', { amount: '10' });
  const plan = await api.plan([(await api.liveProduct('seat * 2')).id]);
  await api.publishPlan(plan);
  const subscription = (await api.subscribe({ customer_id: customer, plan_id: plan })).id;
  const migration = await api.post(`/v1/plans/${plan}/migrate`, {
    mode: 'SCHEDULED',
    target_version: 1,
    scheduled_at: '2099-01-01T00:00:00Z',
  });
  return { subscription, migration: migration.body.migration_id };
}
