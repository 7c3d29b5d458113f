import fc from 'fast-check';
import {
  BAD_INPUT_RUNS,
  BadInputRoute,
  badInputSeed,
  expectEveryDefectRefused,
  expectRespelledPathsReplayed,
  Ids,
  nonArray,
  nonString,
} from '../support/bad-input';
import { CatalogClient } from '../support/catalog-helpers';
import { SubscriptionClient } from '../support/subscription-helpers';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

/**
 * R8 for the subscription and migration writes: create and cancel a subscription, migrate a
 * plan, cancel a migration. Each valid request is spoiled by exactly one defect (see
 * test/support/bad-input.ts) and must be answered 4xx in the contract's error shape with nothing
 * changed. The seed is printed; SEED=<n> replays a run, BAD_INPUT_RUNS=<n> sizes it.
 */
const seed = badInputSeed();

const TABLES: Record<string, string[]> = {
  subscriptions: [],
  subscription_product_pins: [],
  plan_migrations: [],
  plan_migration_outcomes: [],
  subscription_version_changes: [],
  plans: [],
  plan_versions: [],
  audit_events: [],
  outbox_events: ['dispatched_at', 'attempts', 'next_attempt_at', 'last_error'],
};

/** Anything but a positive integer: the refused version numbers. */
const notPositiveInteger = fc.oneof(
  fc.integer({ max: 0 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value)),
  fc.boolean(),
  fc.string({ maxLength: 6 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

const ROUTES: BadInputRoute[] = [
  {
    name: 'subscription',
    method: 'post',
    path: () => '/v1/subscriptions',
    body: (ids) => ({
      customer_id: ids.customer,
      plan_id: ids.plan,
      plan_version: 1,
      billing_cadence: 'month',
      plan_track_mode: 'latest',
      version_change_strategy: 'immediate',
      product_pins: [{ product_id: ids.product, product_version_id: ids.product_version }],
      current_period_start: '2026-12-01T00:00:00Z',
    }),
    takesIds: true,
    wrongTypes: {
      customer_id: nonString,
      plan_id: nonString,
      plan_version: notPositiveInteger,
      billing_cadence: nonString,
      plan_track_mode: nonString,
      version_change_strategy: nonString,
      product_pins: nonArray,
      current_period_start: nonString,
    },
  },
  {
    name: 'cancel subscription',
    method: 'post',
    path: (ids) => `/v1/subscriptions/${ids.subscription}/cancel`,
    body: () => ({}),
    takesIds: true,
  },
  {
    name: 'migrate',
    method: 'post',
    path: (ids) => `/v1/plans/${ids.plan}/migrate`,
    // PREVIEW: a valid request that writes nothing, so every spoiled one must change nothing too.
    body: () => ({ mode: 'PREVIEW', target_version: 1, proration_strategy: 'none' }),
    takesIds: true,
    wrongTypes: { mode: nonString, target_version: notPositiveInteger, proration_strategy: nonString },
  },
  {
    name: 'cancel migration',
    method: 'post',
    path: (ids) => `/v1/migrations/${ids.migration}/cancel`,
    body: () => ({}),
    takesIds: true,
  },
];

describe('Subscription and migration writes under generated bad input (R8)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;

  async function catalog(owner: TestTenant): Promise<Ids> {
    const api = new SubscriptionClient(new CatalogClient(t, owner.auth), owner);
    await api.orgCost('seat', { amount: '10' });
    const product = await api.liveProduct('seat * 2');
    const plan = await api.plan([product.id]);
    await api.publishPlan(plan);
    const customer = await api.customer();
    const subscription = (await api.subscribe({ customer_id: customer, plan_id: plan })).id;
    const migration = await api.post(`/v1/plans/${plan}/migrate`, {
      mode: 'SCHEDULED',
      target_version: 1,
      scheduled_at: '2099-01-01T00:00:00Z',
    });
    expect(migration.status).toBe(200);
    return {
      customer,
      plan,
      product: product.id,
      product_version: product.live_version.id,
      subscription,
      migration: migration.body.migration_id,
    };
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    ids = await catalog(tenant);
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx and changes nothing (SEED printed)`, async () => {
    console.log(`subscription bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    // Another organization's resources of each kind: "not yours" must be refused like "unknown".
    const foreignIds = await catalog(await createTenant(t));
    await expectEveryDefectRefused(t, {
      auth: tenant.auth,
      routes: ROUTES,
      ids,
      foreignId: foreignIds.plan,
      foreignIds,
      seed,
      runs: BAD_INPUT_RUNS,
      tables: TABLES,
    });
  });

  it('replays each route’s valid request under one Idempotency-Key however its path is spelled, with no second effect', async () => {
    await expectRespelledPathsReplayed(t, { auth: tenant.auth, routes: ROUTES, ids, tables: TABLES });
  });
});
