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
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * R8 for the webhook endpoint routes: create, update and rotate_secret get valid requests spoiled
 * by exactly one defect (see test/support/bad-input.ts); each must be answered 4xx in the
 * contract's error shape, and nothing may change. SEED=<n> replays a run, BAD_INPUT_RUNS=<n> sizes it.
 */
const seed = badInputSeed();

const TABLES: Record<string, string[]> = {
  webhook_endpoints: [],
  webhook_deliveries: [],
  audit_events: [],
  outbox_events: [],
};

const nonObject = fc.oneof(fc.integer(), fc.boolean(), fc.string({ maxLength: 8 }), fc.array(fc.integer(), { maxLength: 2 }));
const ENDPOINT_TYPES = { url: nonString, enabled_events: nonArray, description: nonString, metadata: nonObject };

const ROUTES: BadInputRoute[] = [
  {
    name: 'webhook endpoint',
    method: 'post',
    path: () => '/v1/webhook_endpoints',
    body: () => ({
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['wallet.*', 'customer.created'],
      description: 'Ledger sync',
      metadata: { team: 'finance' },
    }),
    takesIds: false,
    wrongTypes: ENDPOINT_TYPES,
  },
  {
    name: 'webhook endpoint update',
    method: 'patch',
    path: (ids) => `/v1/webhook_endpoints/${ids.endpoint}`,
    body: () => ({ url: 'http://127.0.0.1:9/hooks-v2', enabled_events: ['*'], description: 'Ledger sync v2', metadata: {} }),
    takesIds: true,
    wrongTypes: ENDPOINT_TYPES,
    declared: ['status'],
  },
  {
    name: 'rotate webhook secret',
    method: 'post',
    path: (ids) => `/v1/webhook_endpoints/${ids.endpoint}/rotate_secret`,
    body: () => ({}),
    takesIds: true,
  },
];

describe('Webhook endpoint routes under generated bad input (R8)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;

  async function endpointOf(owner: TestTenant): Promise<string> {
    const response = await t.http
      .post('/v1/webhook_endpoints')
      .set('Authorization', owner.auth)
      .set('Idempotency-Key', idem())
      .send({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] })
      .expect(201);
    return response.body.id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    ids = { endpoint: await endpointOf(tenant) };
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx and changes nothing (SEED printed)`, async () => {
    console.log(`webhooks bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    // Another organization's endpoint: "not yours" must be refused like "unknown".
    const foreignId = await endpointOf(await createTenant(t));
    await expectEveryDefectRefused(t, {
      auth: tenant.auth,
      routes: ROUTES,
      ids,
      foreignId,
      seed,
      runs: BAD_INPUT_RUNS,
      tables: TABLES,
    });
  });

  it('replays each route’s valid request under one Idempotency-Key however its path is spelled, with no second effect', async () => {
    await expectRespelledPathsReplayed(t, { auth: tenant.auth, routes: ROUTES, ids, tables: TABLES });
  });
});
