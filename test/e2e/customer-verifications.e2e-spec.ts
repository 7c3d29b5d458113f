import { EXPIRE_VERIFICATION_JOB, RETRY_VERIFICATION_JOB } from '@app/identity';
import { JobQueue, ManualClock } from '@app/shared-kernel';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SandboxVerificationProvider } from '../../libs/identity/src/infrastructure/sandbox-verification-provider';
import type { SandboxStatus } from '../../libs/identity/src/infrastructure/sandbox-verification-provider';
import { SandboxPaymentProvider } from '../../libs/billing-wallet/src/infrastructure/sandbox-payment-provider';
import { expectError, expectFieldError } from '../support/auth-helpers';
import { ISO, UUID } from '../support/expectations';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const STATUSES = ['pending', 'verified', 'expired', 'failed', 'manual', 'maintenance'] as const;
type Status = (typeof STATUSES)[number];
const TYPES = ['kyc', 'kyb', 'age', 'business_entity', 'vat'] as const;

/**
 * The admin transitions, in the API contract's own words (docs/api-contract.md, "Verification
 * detail"): the one table every pair below is generated from.
 */
const CONTRACT_TRANSITIONS =
  'pending → any; verified → expired, manual, pending; failed or expired → pending, manual; ' +
  'manual → verified, failed, pending; maintenance → pending, verified, failed, manual';

function permitted(): Record<Status, Status[]> {
  const table = {} as Record<Status, Status[]>;
  for (const rule of CONTRACT_TRANSITIONS.split('; ')) {
    const [sources, targets] = rule.split(' → ');
    for (const from of sources.split(' or ') as Status[]) {
      table[from] = targets === 'any' ? STATUSES.filter((to) => to !== from) : (targets.split(', ') as Status[]);
    }
  }
  expect(Object.keys(table).sort()).toEqual([...STATUSES].sort());
  return table;
}

const DETAIL_FIELDS = [
  'id',
  'object',
  'customer_id',
  'status',
  'verification_type',
  'created_at',
  'provider',
  'provider_reference',
  'provider_result',
  'updated_at',
  'completed_at',
  'expires_at',
];
const SUMMARY_FIELDS = ['id', 'object', 'customer_id', 'status', 'verification_type', 'created_at'];

/**
 * Customer verifications over HTTP: the sandbox test helper, list filters, the detail read, the
 * admin override against the contract's whole transition table, signed provider webhooks
 * (signature, replay window, duplicates, out-of-order deliveries), expiry and outage retries
 * through the job queue, outbox events, audit and tenant isolation. The app runs on a ManualClock
 * set after the real date: queued jobs never fire by themselves, the tests run them with
 * JobQueue.runNow.
 */
describe('Customer verifications', () => {
  const clock = new ManualClock(new Date('2027-03-01T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let sandbox: SandboxVerificationProvider;
  let a: TestTenant;
  let b: TestTenant;
  let customerA: string;
  let customerB: string;
  let liveCustomerA: string;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    sandbox = t.app.get(SandboxVerificationProvider);
    a = await createTenant(t, { withOwner: true });
    b = await createTenant(t);
    customerA = await customer(a.sandboxAuth);
    customerB = await customer(b.sandboxAuth);
    liveCustomerA = await customer(a.auth);
  });
  afterAll(() => t.close());

  async function customer(auth: string): Promise<string> {
    const response = await t.http
      .post('/v1/customers')
      .set('Authorization', auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Verified GmbH', currency: 'EUR' });
    expect(response.status).toBe(201);
    return response.body.id;
  }

  function helper(body: Record<string, unknown>, auth = a.sandboxAuth): Promise<request.Response> {
    return t.http
      .post('/v1/test_helpers/customer_verifications')
      .set('Authorization', auth)
      .set('Idempotency-Key', idem())
      .send(body)
      .then((response) => response);
  }

  /** A sandbox verification of customer A, opened in `status` (one second later than the previous one). */
  async function open(status: Status = 'pending', extra: Record<string, unknown> = {}): Promise<any> {
    clock.advance(SECOND);
    const response = await helper({ customer_id: customerA, verification_type: 'kyc', status, ...extra });
    expect({ status: response.status, body: response.body }).toEqual({ status: 201, body: expect.objectContaining({ status }) });
    return response.body;
  }

  function get(id: string, auth = a.sandboxAuth): Promise<request.Response> {
    return t.http
      .get(`/v1/customer_verifications/${id}`)
      .set('Authorization', auth)
      .then((response) => response);
  }

  function patch(id: string, body: Record<string, unknown>, auth = a.sandboxAuth): Promise<request.Response> {
    return t.http
      .patch(`/v1/customer_verifications/${id}`)
      .set('Authorization', auth)
      .send(body)
      .then((response) => response);
  }

  function list(query: string, auth = a.sandboxAuth): Promise<request.Response> {
    return t.http
      .get(`/v1/customer_verifications${query}`)
      .set('Authorization', auth)
      .then((response) => response);
  }

  function deliver(body: string, signature: string | undefined, provider = 'sandbox'): Promise<request.Response> {
    let pending = t.http.post(`/v1/webhooks/verifications/${provider}`).set('Content-Type', 'application/json');
    if (signature !== undefined) pending = pending.set('Billing-Signature', signature);
    return pending.send(body).then((response) => response);
  }

  function event(
    reference: string,
    status: SandboxStatus,
    occurredAt = clock.now(),
    options: { id?: string; expiresAt?: Date | null } = {},
  ): { body: string; signature: string; id: string } {
    const id = options.id ?? `evt_${randomUUID()}`;
    return { id, ...sandbox.signedEvent({ id, reference, status, occurredAt, expiresAt: options.expiresAt }) };
  }

  async function stored(id: string): Promise<unknown> {
    const [row] = await db.query(`SELECT to_jsonb(v) AS row FROM customer_verifications v WHERE id = $1`, [id]);
    return row?.row;
  }

  async function deliveries(id: string): Promise<Array<{ event_id: string; applied: boolean }>> {
    return db.query(
      `SELECT event_id, applied FROM verification_webhook_events WHERE verification_id = $1 ORDER BY received_at, event_id`,
      [id],
    );
  }

  async function events(id: string): Promise<Array<{ previousStatus: Status | null; status: Status; source: string }>> {
    const rows = await db.query(
      `SELECT payload FROM outbox_events WHERE event_type = 'customer_verification.updated' AND payload->>'verificationId' = $1
        ORDER BY occurred_at, id`,
      [id],
    );
    return rows.map(({ payload }: { payload: any }) => ({
      previousStatus: payload.previousStatus,
      status: payload.status,
      source: payload.source,
    }));
  }

  async function audit(id: string): Promise<any[]> {
    return db.query(
      `SELECT action, principal_type, principal_id, data FROM audit_events WHERE resource_id = $1 ORDER BY occurred_at, id`,
      [id],
    );
  }

  async function jobs(name: string, id: string): Promise<Date[]> {
    const rows = await db.query(
      `SELECT start_after FROM pgboss.job WHERE name = $1 AND data->>'verificationId' = $2 AND state = 'created' ORDER BY start_after`,
      [name, id],
    );
    return rows.map((row: { start_after: Date }) => row.start_after);
  }

  function runJob(name: string, verification: { id: string }, tenant = a): Promise<void> {
    return t.app.get(JobQueue).runNow(name, {
      organizationId: tenant.organization_id,
      workspaceId: tenant.sandboxWorkspaceId,
      verificationId: verification.id,
    });
  }

  describe('sandbox test helper', () => {
    it('opens a verification of the chosen type in the chosen status: 201, Location, the full detail', async () => {
      const expiresAt = new Date(clock.now().getTime() + 365 * 24 * HOUR).toISOString();
      clock.advance(SECOND);
      const response = await helper({
        customer_id: customerA,
        verification_type: 'vat',
        status: 'verified',
        expires_at: expiresAt,
      });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe(`/v1/customer_verifications/${response.body.id}`);
      expect(Object.keys(response.body)).toEqual(DETAIL_FIELDS);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'customer_verification',
        customer_id: customerA,
        status: 'verified',
        verification_type: 'vat',
        created_at: clock.now().toISOString(),
        provider: 'sandbox',
        provider_reference: expect.stringMatching(/^vs_sandbox_[0-9a-f]{24}$/),
        provider_result: expect.objectContaining({ status: 'approved', check: 'vat', expires_at: expiresAt }),
        updated_at: clock.now().toISOString(),
        completed_at: clock.now().toISOString(),
        expires_at: expiresAt,
      });
      expect((await get(response.body.id)).body).toEqual(response.body);
      expect(await events(response.body.id)).toEqual([{ previousStatus: null, status: 'verified', source: 'test_helper' }]);
      expect(await audit(response.body.id)).toEqual([
        expect.objectContaining({
          action: 'customer_verification.created',
          principal_type: 'api_key',
          principal_id: a.sandbox_api_key.id,
          data: expect.objectContaining({ to: 'verified', verification_type: 'vat' }),
        }),
      ]);
    });

    it('opens every type in every status; pending when no status is given', async () => {
      for (const type of TYPES) {
        for (const status of STATUSES) {
          const response = await helper({ customer_id: customerA, verification_type: type, status });
          expect({ type, status: response.status, body: response.body }).toEqual({
            type,
            status: 201,
            body: expect.objectContaining({
              verification_type: type,
              status,
              completed_at: ['verified', 'failed', 'expired'].includes(status) ? expect.stringMatching(ISO) : null,
            }),
          });
        }
      }
      expect((await helper({ customer_id: customerA, verification_type: 'age' })).body.status).toBe('pending');
    });

    it('works in sandbox workspaces only: 403 SANDBOX_ONLY elsewhere, nothing stored', async () => {
      const [{ count: before }] = await db.query(`SELECT count(*)::int AS count FROM customer_verifications`);
      expectError(await helper({ customer_id: liveCustomerA, verification_type: 'kyc' }, a.auth), 403, 'SANDBOX_ONLY');
      const session = await signIn(t, a.owner!.email, a.owner!.password);
      expectError(await helper({ customer_id: liveCustomerA, verification_type: 'kyc' }, session), 403, 'SANDBOX_ONLY');
      const [{ count: after }] = await db.query(`SELECT count(*)::int AS count FROM customer_verifications`);
      expect(after).toBe(before);
    });

    it('resolves the customer in the caller’s workspace: another organization’s, a live one or an unknown one is 404', async () => {
      for (const customerId of [customerB, liveCustomerA, randomUUID()]) {
        const error = expectError(await helper({ customer_id: customerId, verification_type: 'kyc' }), 404, 'CUSTOMER_NOT_FOUND');
        expect(error.param).toBe('customer_id');
      }
    });

    it('refuses bad input with 400 and stores nothing', async () => {
      const [{ count: before }] = await db.query(`SELECT count(*)::int AS count FROM customer_verifications`);
      const past = new Date(clock.now().getTime() - SECOND).toISOString();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ verification_type: 'kyc' }, 'customer_id'],
        [{ customer_id: 'not-a-uuid', verification_type: 'kyc' }, 'customer_id'],
        [{ customer_id: customerA }, 'verification_type'],
        [{ customer_id: customerA, verification_type: 'passport' }, 'verification_type'],
        [{ customer_id: customerA, verification_type: 'kyc', status: 'approved' }, 'status'],
        [{ customer_id: customerA, verification_type: 'kyc', expires_at: '2099-01-01' }, 'expires_at'],
        [{ customer_id: customerA, verification_type: 'kyc', expires_at: past }, 'expires_at'],
      ];
      for (const [body, param] of cases) {
        const response = await helper(body);
        expect({ body, status: response.status, code: response.body.error?.code }).toEqual({
          body,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
        expect(response.body.error.errors.map((error: { param: string }) => error.param)).toContain(param);
      }
      const [{ count: after }] = await db.query(`SELECT count(*)::int AS count FROM customer_verifications`);
      expect(after).toBe(before);
    });
  });

  describe('list and detail', () => {
    let other: string;
    const mine: any[] = [];

    beforeAll(async () => {
      other = await customer(a.sandboxAuth);
      // Three customers' worth of verifications in several types and statuses, one second apart.
      const plan: Array<[string, string, Status]> = [
        [other, 'kyc', 'pending'],
        [other, 'kyb', 'verified'],
        [other, 'age', 'failed'],
        [other, 'vat', 'pending'],
        [other, 'kyc', 'manual'],
        [other, 'business_entity', 'maintenance'],
        [other, 'kyc', 'verified'],
      ];
      for (const [customerId, type, status] of plan) {
        clock.advance(SECOND);
        const response = await helper({ customer_id: customerId, verification_type: type, status });
        expect(response.status).toBe(201);
        mine.push(response.body);
      }
      // Organization B's verification, and one of its own customer, never show up in A's lists.
      await helper({ customer_id: customerB, verification_type: 'kyc', status: 'pending' }, b.sandboxAuth);
    });

    const newestFirst = (rows: any[]) => [...rows].reverse().map((row) => row.id);
    const ids = (response: request.Response) => response.body.data.map((row: { id: string }) => row.id);

    it('lists the workspace’s verifications newest first, with the summary fields only', async () => {
      const response = await list(`?customer_id=${other}`);
      expect(response.status).toBe(200);
      expect(ids(response)).toEqual(newestFirst(mine));
      expect(response.body.pagination).toEqual({ cursor: null, has_more: false });
      for (const row of response.body.data) expect(Object.keys(row)).toEqual(SUMMARY_FIELDS);
      expect(response.body.data[0]).toEqual({
        id: mine[6].id,
        object: 'customer_verification',
        customer_id: other,
        status: 'verified',
        verification_type: 'kyc',
        created_at: mine[6].created_at,
      });
    });

    it('filters by customer_id, status, verification_type, occurred_after (≥) and occurred_before (<), alone and together', async () => {
      const cases: Array<[string, any[]]> = [
        [`status=pending`, mine.filter((row) => row.status === 'pending')],
        [`status=verified`, mine.filter((row) => row.status === 'verified')],
        [`verification_type=kyc`, mine.filter((row) => row.verification_type === 'kyc')],
        [`verification_type=business_entity`, mine.filter((row) => row.verification_type === 'business_entity')],
        [`occurred_after=${mine[2].created_at}`, mine.slice(2)],
        [`occurred_before=${mine[2].created_at}`, mine.slice(0, 2)],
        [`occurred_after=${mine[1].created_at}&occurred_before=${mine[4].created_at}`, mine.slice(1, 4)],
        [`status=verified&verification_type=kyc`, [mine[6]]],
        [`verification_type=kyc&occurred_before=${mine[6].created_at}`, [mine[0], mine[4]]],
        [`status=expired`, []],
      ];
      for (const [query, expected] of cases) {
        const response = await list(`?customer_id=${other}&${query}`);
        expect({ query, status: response.status, ids: ids(response) }).toEqual({
          query,
          status: 200,
          ids: newestFirst(expected),
        });
      }
      // Offsets other than Z are the same instants.
      const shifted = new Date(mine[2].created_at).toISOString().replace('Z', '+00:00');
      const offset = await list(`?customer_id=${other}&occurred_after=${encodeURIComponent(shifted)}`);
      expect(ids(offset)).toEqual(newestFirst(mine.slice(2)));
      // Another customer of the workspace has its own.
      expect(ids(await list(`?customer_id=${customerA}&limit=200`))).not.toEqual(expect.arrayContaining([mine[0].id]));
    });

    it('pages with signed cursors bound to the filters', async () => {
      const first = await list(`?customer_id=${other}&limit=3`);
      expect(ids(first)).toEqual(newestFirst(mine).slice(0, 3));
      expect(first.body.pagination).toEqual({ cursor: expect.any(String), has_more: true });
      const second = await list(`?customer_id=${other}&limit=3&cursor=${first.body.pagination.cursor}`);
      expect(ids(second)).toEqual(newestFirst(mine).slice(3, 6));
      const last = await list(`?customer_id=${other}&limit=3&cursor=${second.body.pagination.cursor}`);
      expect(ids(last)).toEqual(newestFirst(mine).slice(6));
      expect(last.body.pagination).toEqual({ cursor: null, has_more: false });
      expectError(
        await list(`?customer_id=${other}&status=pending&cursor=${first.body.pagination.cursor}`),
        400,
        'INVALID_CURSOR',
      );
      expectError(await list(`?cursor=${first.body.pagination.cursor}`), 400, 'INVALID_CURSOR');
    });

    it('refuses malformed filters with 400', async () => {
      for (const [query, param] of [
        ['customer_id=nope', 'customer_id'],
        ['status=approved', 'status'],
        ['verification_type=passport', 'verification_type'],
        ['occurred_after=2027-03-01', 'occurred_after'],
        ['occurred_before=yesterday', 'occurred_before'],
        ['occurred_after=2027-03-01T09:00:00', 'occurred_after'],
        ['provider=sandbox', 'provider'],
      ]) {
        const response = await list(`?${query}`);
        expectFieldError(response, param, param === 'provider' ? 'UNKNOWN_PARAMETER' : expect.any(String));
      }
    });

    it('keeps tenants apart: another organization or workspace neither lists nor reads them (404)', async () => {
      const bIds = ids(await list('?limit=200', b.sandboxAuth));
      expect(bIds.length).toBeGreaterThan(0);
      for (const row of mine) expect(bIds).not.toContain(row.id);
      expect(ids(await list('?limit=200', a.auth))).toEqual([]);
      for (const auth of [b.sandboxAuth, b.auth, a.auth]) {
        expectError(await get(mine[0].id, auth), 404, 'VERIFICATION_NOT_FOUND');
        expectError(await patch(mine[0].id, { status: 'manual' }, auth), 404, 'VERIFICATION_NOT_FOUND');
      }
      expect((await get(mine[0].id)).body.status).toBe('pending');
      expectError(await get(randomUUID()), 404, 'VERIFICATION_NOT_FOUND');
      expectError(await get('not-a-uuid'), 404, 'VERIFICATION_NOT_FOUND');
    });

    it('needs customer_verifications:read to read and :write to override', async () => {
      const reader = await createKey(t, a.sandboxAuth, { name: 'reader', scopes: ['customer_verifications:read'] });
      const auth = `Bearer ${reader.secret}`;
      expect((await get(mine[0].id, auth)).status).toBe(200);
      expectError(await patch(mine[0].id, { status: 'manual' }, auth), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('admin override', () => {
    const table = permitted();
    const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => ({ from, to })));

    it('answers every pair of statuses as the contract’s table says: permitted 200, same status 200 unchanged, else 409', async () => {
      const seen: string[] = [];
      for (const { from, to } of pairs) {
        const verification = await open(from);
        clock.advance(SECOND);
        const before = await stored(verification.id);
        const response = await patch(verification.id, { status: to });
        if (from === to) {
          expect({ from, to, status: response.status, body: response.body }).toEqual({
            from,
            to,
            status: 200,
            body: verification,
          });
          expect(await stored(verification.id)).toEqual(before);
          expect(await events(verification.id)).toHaveLength(1);
          seen.push(`${from}→${to} same`);
        } else if (table[from].includes(to)) {
          expect({ from, to, status: response.status, body: response.body }).toEqual({
            from,
            to,
            status: 200,
            body: {
              ...verification,
              status: to,
              updated_at: clock.now().toISOString(),
              completed_at: ['verified', 'failed', 'expired'].includes(to) ? clock.now().toISOString() : null,
            },
          });
          expect((await get(verification.id)).body).toEqual(response.body);
          expect(await events(verification.id)).toEqual([
            { previousStatus: null, status: from, source: 'test_helper' },
            { previousStatus: from, status: to, source: 'admin' },
          ]);
          seen.push(`${from}→${to} allowed`);
        } else {
          const error = expectError(response, 409, 'INVALID_STATUS_TRANSITION');
          expect({ from, to, details: error.details }).toEqual({ from, to, details: { from, to, allowed: table[from] } });
          expect(await stored(verification.id)).toEqual(before);
          expect(await events(verification.id)).toHaveLength(1);
          seen.push(`${from}→${to} refused`);
        }
      }
      expect(seen).toHaveLength(36);
      expect(seen.filter((entry) => entry.endsWith('allowed'))).toHaveLength(
        Object.values(table).reduce((sum, targets) => sum + targets.length, 0),
      );
    });

    it('audits every override with the principal who made it (key or human) and the status it replaced; a no-op is not audited', async () => {
      const verification = await open('pending');
      await patch(verification.id, { status: 'manual' });
      const owner = await signIn(t, a.owner!.email, a.owner!.password);
      const [{ id: ownerId }] = await db.query(`SELECT id FROM users WHERE email = lower($1)`, [a.owner!.email]);
      // A session acts in the live workspace unless told otherwise: the sandbox record is not there.
      expectError(await patch(verification.id, { status: 'verified' }, owner), 404, 'VERIFICATION_NOT_FOUND');
      const sandboxSession = await t.http
        .patch(`/v1/customer_verifications/${verification.id}`)
        .set('Authorization', owner)
        .set('X-Workspace-Id', 'sandbox')
        .send({ status: 'verified' });
      expect([sandboxSession.status, sandboxSession.body.status]).toEqual([200, 'verified']);
      expect((await patch(verification.id, { status: 'verified' })).status).toBe(200);
      const overrides = (await audit(verification.id)).filter((row) => row.action === 'customer_verification.status_overridden');
      expect(overrides).toEqual([
        expect.objectContaining({
          principal_type: 'api_key',
          principal_id: a.sandbox_api_key.id,
          data: expect.objectContaining({ from: 'pending', to: 'manual' }),
        }),
        expect.objectContaining({
          principal_type: 'user',
          principal_id: ownerId,
          data: expect.objectContaining({ from: 'manual', to: 'verified' }),
        }),
      ]);
    });

    it('refuses a missing or unknown status and unknown fields with 400, changing nothing', async () => {
      const verification = await open('pending');
      const before = await stored(verification.id);
      for (const body of [{}, { status: 'approved' }, { status: null }, { status: 'manual', customer_id: customerB }]) {
        expectError(await patch(verification.id, body), 400, 'VALIDATION_ERROR');
      }
      expect(await stored(verification.id)).toEqual(before);
    });
  });

  describe('provider webhooks', () => {
    it('moves a pending verification by the provider’s signed result: 200, the raw result kept, the change announced', async () => {
      const verification = await open('pending');
      const expiresAt = new Date(clock.now().getTime() + 30 * 24 * HOUR);
      clock.advance(SECOND);
      const { body, signature } = event(verification.provider_reference, 'approved', clock.now(), { expiresAt });
      const response = await deliver(body, signature);
      expect([response.status, response.body]).toEqual([200, { received: true, duplicate: false }]);
      const detail = (await get(verification.id)).body;
      expect(detail).toEqual({
        ...verification,
        status: 'verified',
        provider_result: JSON.parse(body),
        updated_at: clock.now().toISOString(),
        completed_at: clock.now().toISOString(),
        expires_at: expiresAt.toISOString(),
      });
      const [{ text }] = await db.query(`SELECT provider_result::text AS text FROM customer_verifications WHERE id = $1`, [
        verification.id,
      ]);
      expect(text).toBe(body);
      expect(await events(verification.id)).toEqual([
        { previousStatus: null, status: 'pending', source: 'test_helper' },
        { previousStatus: 'pending', status: 'verified', source: 'provider' },
      ]);
      expect((await audit(verification.id)).at(-1)).toEqual(
        expect.objectContaining({ action: 'customer_verification.status_changed', principal_type: 'system', principal_id: null }),
      );
      expect(await jobs(EXPIRE_VERIFICATION_JOB, verification.id)).toEqual([expiresAt]);
    });

    it('maps every status of the provider: processing, approved, declined, expired, review, unavailable', async () => {
      const mapped: Record<SandboxStatus, Status> = {
        processing: 'pending',
        approved: 'verified',
        declined: 'failed',
        expired: 'expired',
        review: 'manual',
        unavailable: 'maintenance',
      };
      for (const [status, ours] of Object.entries(mapped) as Array<[SandboxStatus, Status]>) {
        const verification = await open('pending');
        clock.advance(SECOND);
        const { body, signature } = event(verification.provider_reference, status);
        expect((await deliver(body, signature)).status).toBe(200);
        expect({ status, ours: (await get(verification.id)).body.status }).toEqual({ status, ours });
      }
    });

    it('treats a redelivery of the same event as a no-op, even after the record moved on', async () => {
      const verification = await open('pending');
      clock.advance(SECOND);
      const first = event(verification.provider_reference, 'declined');
      expect((await deliver(first.body, first.signature)).body).toEqual({ received: true, duplicate: false });
      const after = await stored(verification.id);
      clock.advance(MINUTE);
      // The provider retries with a fresh signature: still the same event.
      const again = await deliver(first.body, sandbox.sign(first.body));
      expect([again.status, again.body]).toEqual([200, { received: true, duplicate: true }]);
      expect(await stored(verification.id)).toEqual(after);
      expect(await deliveries(verification.id)).toEqual([{ event_id: first.id, applied: true }]);
      expect(await events(verification.id)).toHaveLength(2);
    });

    it('never moves a record backwards: an older result arriving after a newer one is kept but not applied', async () => {
      const verification = await open('pending');
      const older = clock.now();
      clock.advance(10 * SECOND);
      const newer = event(verification.provider_reference, 'processing', clock.now());
      const late = event(verification.provider_reference, 'approved', older);
      expect((await deliver(newer.body, newer.signature)).status).toBe(200);
      const after = await stored(verification.id);
      clock.advance(SECOND);
      const response = await deliver(late.body, sandbox.sign(late.body));
      expect([response.status, response.body]).toEqual([200, { received: true, duplicate: false }]);
      expect(await stored(verification.id)).toEqual(after);
      expect((await get(verification.id)).body).toEqual(
        expect.objectContaining({ status: 'pending', provider_result: JSON.parse(newer.body) }),
      );
      expect(await deliveries(verification.id)).toEqual([
        { event_id: newer.id, applied: true },
        { event_id: late.id, applied: false },
      ]);
      // Nor does a result older than an admin's override.
      clock.advance(SECOND);
      const beforeOverride = clock.now();
      clock.advance(SECOND);
      await patch(verification.id, { status: 'manual' });
      await patch(verification.id, { status: 'pending' });
      const stale = event(verification.provider_reference, 'declined', beforeOverride);
      expect((await deliver(stale.body, stale.signature)).status).toBe(200);
      expect((await get(verification.id)).body.status).toBe('pending');
    });

    it('keeps settled records settled: a provider’s later word on a failed or manual check changes nothing', async () => {
      for (const status of ['failed', 'manual', 'expired'] as const) {
        const verification = await open(status);
        clock.advance(SECOND);
        const before = await stored(verification.id);
        const { body, signature, id } = event(verification.provider_reference, 'approved');
        expect((await deliver(body, signature)).body).toEqual({ received: true, duplicate: false });
        expect(await stored(verification.id)).toEqual(before);
        expect(await deliveries(verification.id)).toEqual([{ event_id: id, applied: false }]);
      }
    });

    it('refuses a bad, missing or stale signature with 401 INVALID_SIGNATURE and stores nothing', async () => {
      const verification = await open('pending');
      const { body, signature } = event(verification.provider_reference, 'approved');
      const now = Math.floor(clock.now().getTime() / 1000);
      const payments = t.app.get(SandboxPaymentProvider);
      const before = await stored(verification.id);
      const [{ count: receivedBefore }] = await db.query(`SELECT count(*)::int AS count FROM verification_webhook_events`);
      const refused: Array<[string, string, string | undefined]> = [
        ['stale (5 min 1 s)', body, sandbox.sign(body, now - 301)],
        ['from the future', body, sandbox.sign(body, now + 301)],
        ['tampered body', body.replace('approved', 'declined'), signature],
        ['another provider’s secret', body, payments.sign(body)],
        ['no signature', body, undefined],
        ['garbled', body, 'v1=deadbeef'],
        ['timestamp only', body, `t=${now}`],
      ];
      for (const [label, sent, header] of refused) {
        const response = await deliver(sent, header);
        expect({ label, status: response.status, code: response.body.error?.code }).toEqual({
          label,
          status: 401,
          code: 'INVALID_SIGNATURE',
        });
      }
      expect(await stored(verification.id)).toEqual(before);
      const [{ count: receivedAfter }] = await db.query(`SELECT count(*)::int AS count FROM verification_webhook_events`);
      expect(receivedAfter).toBe(receivedBefore);
      // Within the window either way it is accepted; the payment webhooks verify through the same code.
      expect((await deliver(body, sandbox.sign(body, now - 299))).status).toBe(200);
      const stalePayment = '{"id":"evt_stale","type":"top_up.succeeded","data":{}}';
      expectError(
        await t.http
          .post('/v1/webhooks/payments/sandbox')
          .set('Content-Type', 'application/json')
          .set('Billing-Signature', payments.sign(stalePayment, now - 301))
          .send(stalePayment),
        401,
        'INVALID_SIGNATURE',
      );
    });

    it('answers an unknown provider 404, an unknown reference 404, an event it does not understand 400: nothing stored', async () => {
      const verification = await open('pending');
      const before = await stored(verification.id);
      const good = event(verification.provider_reference, 'approved');
      expectError(await deliver(good.body, good.signature, 'onfido'), 404, 'UNKNOWN_PROVIDER');
      const unknown = event(`vs_sandbox_${'0'.repeat(24)}`, 'approved');
      expectError(await deliver(unknown.body, unknown.signature), 404, 'VERIFICATION_NOT_FOUND');
      for (const body of [
        JSON.stringify({ id: 'evt_x', type: 'check.deleted', occurred_at: clock.now().toISOString(), data: {} }),
        JSON.stringify({ ...JSON.parse(good.body), data: { reference: verification.provider_reference, status: 'great' } }),
        JSON.stringify({ ...JSON.parse(good.body), occurred_at: 'yesterday' }),
        JSON.stringify({ ...JSON.parse(good.body), id: '' }),
        '[]',
      ]) {
        expectError(await deliver(body, sandbox.sign(body)), 400, 'UNSUPPORTED_EVENT');
      }
      expect(await stored(verification.id)).toEqual(before);
      expect(await deliveries(verification.id)).toEqual([]);
    });

    it('resolves the record by the provider’s reference, whatever workspace or organization it is in', async () => {
      const response = await helper({ customer_id: customerB, verification_type: 'kyb' }, b.sandboxAuth);
      clock.advance(SECOND);
      const { body, signature } = event(response.body.provider_reference, 'declined');
      expect((await deliver(body, signature)).status).toBe(200);
      const read = await t.http.get(`/v1/customer_verifications/${response.body.id}`).set('Authorization', b.sandboxAuth);
      expect(read.body.status).toBe('failed');
      expectError(await get(response.body.id), 404, 'VERIFICATION_NOT_FOUND');
    });
  });

  describe('lifecycle through the job queue', () => {
    it('expires a verified check at expires_at (its job queued with it), not a moment before', async () => {
      const expiresAt = new Date(clock.now().getTime() + HOUR);
      const verification = await open('verified', { expires_at: expiresAt.toISOString() });
      expect(await jobs(EXPIRE_VERIFICATION_JOB, verification.id)).toEqual([expiresAt]);
      clock.set(new Date(expiresAt.getTime() - 1));
      await runJob(EXPIRE_VERIFICATION_JOB, verification);
      expect((await get(verification.id)).body.status).toBe('verified');
      clock.set(expiresAt);
      await runJob(EXPIRE_VERIFICATION_JOB, verification);
      const expired = (await get(verification.id)).body;
      expect(expired).toEqual({
        ...verification,
        status: 'expired',
        updated_at: expiresAt.toISOString(),
        completed_at: expiresAt.toISOString(),
      });
      expect(await events(verification.id)).toEqual([
        { previousStatus: null, status: 'verified', source: 'test_helper' },
        { previousStatus: 'verified', status: 'expired', source: 'expiry' },
      ]);
      expect((await audit(verification.id)).at(-1)).toEqual(
        expect.objectContaining({ action: 'customer_verification.status_changed', principal_type: 'system' }),
      );
      // Again, or for a check an admin already moved on, nothing happens.
      await runJob(EXPIRE_VERIFICATION_JOB, verification);
      expect((await get(verification.id)).body).toEqual(expired);
      const overridden = await open('verified', { expires_at: new Date(clock.now().getTime() + MINUTE).toISOString() });
      await patch(overridden.id, { status: 'manual' });
      clock.advance(2 * MINUTE);
      await runJob(EXPIRE_VERIFICATION_JOB, overridden);
      expect((await get(overridden.id)).body.status).toBe('manual');
    });

    it('retries a provider outage 5, 10, 20, 40 and 60 minutes apart, then leaves it to an admin', async () => {
      const verification = await open('maintenance');
      sandbox.scriptRetries(
        verification.provider_reference,
        'unavailable',
        'unavailable',
        'unavailable',
        'unavailable',
        'unavailable',
      );
      const gaps: number[] = [];
      let last = clock.now();
      for (;;) {
        const queued = await jobs(RETRY_VERIFICATION_JOB, verification.id);
        // Skips the re-queue a too-early run leaves just after the retry it was early for.
        const next = queued.find((at) => at.getTime() > last.getTime() + SECOND);
        if (!next) break;
        gaps.push((next.getTime() - last.getTime()) / MINUTE);
        // A moment early (another instance's clock) does nothing.
        clock.set(new Date(next.getTime() - SECOND));
        await runJob(RETRY_VERIFICATION_JOB, verification);
        clock.set(next);
        await runJob(RETRY_VERIFICATION_JOB, verification);
        last = next;
      }
      expect(gaps).toEqual([5, 10, 20, 40, 60]);
      const [{ retry_count, next_retry_at }] = await db.query(
        `SELECT retry_count, next_retry_at FROM customer_verifications WHERE id = $1`,
        [verification.id],
      );
      expect({ retry_count, next_retry_at }).toEqual({ retry_count: 5, next_retry_at: null });
      expect((await get(verification.id)).body.status).toBe('maintenance');
      expect(await events(verification.id)).toHaveLength(1);
      // The admin decides.
      expect((await patch(verification.id, { status: 'verified' })).body.status).toBe('verified');
    });

    it('applies what the provider answers once the outage is over', async () => {
      const verification = await open('maintenance');
      sandbox.scriptRetries(verification.provider_reference, 'unavailable', 'approved');
      clock.advance(5 * MINUTE);
      await runJob(RETRY_VERIFICATION_JOB, verification);
      expect((await get(verification.id)).body.status).toBe('maintenance');
      clock.advance(10 * MINUTE);
      await runJob(RETRY_VERIFICATION_JOB, verification);
      const detail = (await get(verification.id)).body;
      expect(detail).toEqual(
        expect.objectContaining({
          status: 'verified',
          completed_at: clock.now().toISOString(),
          provider_result: expect.objectContaining({ status: 'approved', reference: verification.provider_reference }),
        }),
      );
      expect(await events(verification.id)).toEqual([
        { previousStatus: null, status: 'maintenance', source: 'test_helper' },
        { previousStatus: 'maintenance', status: 'verified', source: 'retry' },
      ]);
    });

    it('starts the retries when a provider reports an outage by webhook, and stops them when it reports again', async () => {
      const verification = await open('pending');
      clock.advance(SECOND);
      const outage = event(verification.provider_reference, 'unavailable');
      expect((await deliver(outage.body, outage.signature)).status).toBe(200);
      expect(await jobs(RETRY_VERIFICATION_JOB, verification.id)).toEqual([new Date(clock.now().getTime() + 5 * MINUTE)]);
      clock.advance(SECOND);
      const back = event(verification.provider_reference, 'declined');
      expect((await deliver(back.body, back.signature)).status).toBe(200);
      clock.advance(5 * MINUTE);
      await runJob(RETRY_VERIFICATION_JOB, verification);
      expect((await get(verification.id)).body.status).toBe('failed');
      expect(await events(verification.id)).toHaveLength(3);
    });
  });
});
