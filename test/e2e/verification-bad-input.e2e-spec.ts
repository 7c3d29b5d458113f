import {
  BAD_INPUT_RUNS,
  BadInputRoute,
  badInputSeed,
  expectEveryDefectRefused,
  expectRespelledPathsReplayed,
  Ids,
} from '../support/bad-input';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * R8 for the customer-verification writes: the admin override, the sandbox test helper and the
 * provider webhook get valid requests spoiled by exactly one defect (see test/support/bad-input.ts);
 * each must be answered 4xx in the contract's error shape, and nothing may change. (The webhook's
 * spoiled bodies carry no valid signature: 401, or 400/415 for what the edge refuses first; signed
 * refusals are in customer-verifications.e2e-spec.ts.) SEED=<n> replays a run, BAD_INPUT_RUNS=<n> sizes it.
 */
const seed = badInputSeed();

/** What these writes must leave untouched. */
const TABLES: Record<string, string[]> = {
  customers: [],
  customer_verifications: [],
  verification_webhook_events: [],
  audit_events: [],
  outbox_events: ['dispatched_at', 'attempts', 'next_attempt_at', 'last_error'],
};

const ROUTES: BadInputRoute[] = [
  {
    name: 'override status',
    method: 'patch',
    path: (ids) => `/v1/customer_verifications/${ids.verification}`,
    // The status it already has: a valid request that changes nothing, so only defects could.
    body: () => ({ status: 'pending' }),
    takesIds: true,
  },
  {
    name: 'sandbox test helper',
    method: 'post',
    path: () => '/v1/test_helpers/customer_verifications',
    body: (ids) => ({
      customer_id: ids.customer,
      verification_type: 'kyc',
      status: 'verified',
      expires_at: '2099-01-01T00:00:00Z',
    }),
    takesIds: true,
  },
  {
    name: 'provider webhook',
    method: 'post',
    path: () => '/v1/webhooks/verifications/sandbox',
    body: () => ({
      id: 'evt_0193a5c2',
      type: 'check.updated',
      occurred_at: '2026-11-22T10:17:02.000Z',
      data: { reference: 'vs_sandbox_5f1c9e2a7b3d4c6e8f0a1b2c', status: 'approved', expires_at: null },
    }),
    takesIds: false,
    public: true,
  },
];

describe('Customer-verification routes under generated bad input (R8)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    const post = (path: string, body: object, auth = tenant.sandboxAuth) =>
      t.http.post(path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body).expect(201);
    const customer = (await post('/v1/customers', { name: 'Checked GmbH', currency: 'EUR' })).body.id;
    const verification = (
      await post('/v1/test_helpers/customer_verifications', { customer_id: customer, verification_type: 'kyc' })
    ).body.id;
    ids = { verification, customer };
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx and changes nothing (SEED printed)`, async () => {
    console.log(`verification bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    // Another organization's sandbox verification and customer: "not yours" must be refused like "unknown".
    const stranger = await createTenant(t);
    const post = (path: string, body: object) =>
      t.http.post(path).set('Authorization', stranger.sandboxAuth).set('Idempotency-Key', idem()).send(body).expect(201);
    const foreignCustomer = (await post('/v1/customers', { name: 'Stranger AG', currency: 'EUR' })).body.id;
    const foreignId = (
      await post('/v1/test_helpers/customer_verifications', { customer_id: foreignCustomer, verification_type: 'kyb' })
    ).body.id;
    await expectEveryDefectRefused(t, {
      auth: tenant.sandboxAuth,
      routes: ROUTES,
      ids,
      foreignId,
      foreignIds: { customer: foreignCustomer },
      seed,
      runs: BAD_INPUT_RUNS,
      tables: TABLES,
    });
  });

  it('replays the test helper’s valid request under one Idempotency-Key however its path is spelled, with no second effect', async () => {
    await expectRespelledPathsReplayed(t, { auth: tenant.sandboxAuth, routes: ROUTES, ids, tables: TABLES });
  });
});
