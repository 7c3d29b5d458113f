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
import { CatalogClient } from '../support/catalog-helpers';
import { SubscriptionClient } from '../support/subscription-helpers';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
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
    name: 'subscriptions',
    path: () => '/v1/subscriptions',
    refused: { ...page, plan_id: badUuid, customer_id: badUuid, status: fc.constantFrom('paused', 'ACTIVE', '', 'active,canceled') },
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
    ids = { wallet: wallet.id, hold: hold.body.id, customer: customer.id, ...(await subscriptionIds(t, tenant, customer.id)) };
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx (never a 5xx) (SEED printed)`, async () => {
    console.log(`query bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    const stranger = await createTenant(t);
    const foreignId = (await new WalletClient(t, stranger.auth).customerWithWallet('EUR', 'Stranger AG')).wallet.id;
    await expectEveryBadQueryAnswered(t, { auth: tenant.auth, routes: ROUTES, ids, foreignId, seed, runs: BAD_INPUT_RUNS });
  });
});

/** A subscription and a (scheduled) migration of a live plan, for the subscription and migration reads. */
async function subscriptionIds(t: TestApp, tenant: TestTenant, customer: string): Promise<Ids> {
  const api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
  await api.orgCost('seat', { amount: '10' });
  const plan = await api.plan([(await api.liveProduct('seat * 2')).id]);
  await api.publishPlan(plan);
  const subscription = (await api.subscribe({ customer_id: customer, plan_id: plan })).id;
  const migration = await api.post(`/v1/plans/${plan}/migrate`, { mode: 'SCHEDULED', target_version: 1, scheduled_at: '2099-01-01T00:00:00Z' });
  return { subscription, migration: migration.body.migration_id };
}
