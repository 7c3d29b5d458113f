import { randomBytes } from 'node:crypto';
import { ALL_SCOPES } from '@app/identity';
import { DataSource } from 'typeorm';
import { Client } from 'pg';
import request from 'supertest';
import { createKey, createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { expectError } from '../support/expectations';
import { binary } from '../support/binary-body';

const RESPONSE_LIMIT = 8192;
const SYSTEM_INVOICE_TEMPLATE = '00000000-0000-4000-8000-000000000001';

// scrypt hashing and real PostgreSQL: the default 5 s is too tight on a busy 2-core machine.
jest.setTimeout(30_000);

/**
 * Contract §1 "Idempotency" and quality bar R3, through the real HTTP stack: the claim, the
 * handler's effects and the stored response share one transaction.
 */
describe('Idempotency of authenticated POSTs', () => {
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;

  beforeAll(async () => {
    // A limit small enough for a customer with full metadata to exceed it, far above every other answer here.
    t = await createTestApp({ env: { IDEMPOTENCY_RESPONSE_MAX_BYTES: String(RESPONSE_LIMIT) } });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  function postCustomer(body: Record<string, unknown>, key: string | undefined, auth = tenant.auth, headers = {}) {
    const call = t.http.post('/v1/customers').set('Authorization', auth).set(headers);
    if (key !== undefined) call.set('Idempotency-Key', key);
    return call.send(body);
  }

  async function customersWithExternalId(externalId: string): Promise<number> {
    const [{ count }] = await db.query('SELECT count(*)::int AS count FROM customers WHERE external_id = $1', [externalId]);
    return count;
  }

  async function recordsForKey(key: string): Promise<number> {
    const [{ count }] = await db.query('SELECT count(*)::int AS count FROM idempotency_records WHERE idempotency_key = $1', [
      key,
    ]);
    return count;
  }

  /** A fresh customer's primary wallet (opened with it), empty. */
  async function emptyWallet(): Promise<string> {
    const customer = await postCustomer({ name: 'Wallet holder', currency: 'EUR' }, idem()).expect(201);
    return customer.body.primary_wallet_id;
  }

  function adjustWallet(walletId: string, body: Record<string, unknown>, key: string) {
    return t.http
      .post(`/v1/wallets/${walletId}/adjust`)
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', key)
      .send(body)
      .then((response) => response);
  }

  /** The wallet and its whole ledger, as the API shows them. */
  async function walletState(walletId: string): Promise<{ wallet: unknown; transactions: unknown[] }> {
    const wallet = await t.http.get(`/v1/wallets/${walletId}`).set('Authorization', tenant.auth).expect(200);
    const lines = await t.http
      .get(`/v1/wallets/${walletId}/transactions?limit=200`)
      .set('Authorization', tenant.auth)
      .expect(200);
    return { wallet: wallet.body, transactions: lines.body.data };
  }

  describe('the Idempotency-Key header', () => {
    it('is required on every authenticated POST: 400 IDEMPOTENCY_KEY_REQUIRED and nothing happens', async () => {
      const missing = await postCustomer({ name: 'No key', currency: 'EUR', external_id: 'no-key' }, undefined);
      expectError(missing, 400, 'invalid_request_error', 'IDEMPOTENCY_KEY_REQUIRED');
      expect(missing.body.error.param).toBe('Idempotency-Key');
      const empty = await postCustomer({ name: 'No key', currency: 'EUR', external_id: 'no-key' }, '');
      expectError(empty, 400, 'invalid_request_error', 'IDEMPOTENCY_KEY_REQUIRED');
      expect(await customersWithExternalId('no-key')).toBe(0);
    });

    it('refuses keys longer than 255 characters or not printable ASCII with 400 IDEMPOTENCY_KEY_INVALID', async () => {
      for (const key of ['k'.repeat(256), 'tab\there', 'caf\u00e9-key']) {
        const response = await postCustomer({ name: 'Bad key', currency: 'EUR', external_id: 'bad-key' }, key);
        expectError(response, 400, 'invalid_request_error', 'IDEMPOTENCY_KEY_INVALID');
        expect(response.body.error.param).toBe('Idempotency-Key');
      }
      expect(await customersWithExternalId('bad-key')).toBe(0);

      const longest = idem().padEnd(255, 'k');
      const accepted = await postCustomer({ name: 'Longest key', currency: 'EUR', external_id: 'longest-key' }, longest);
      expect(accepted.status).toBe(201);
      const spaced = await postCustomer(
        { name: 'Spaced key', currency: 'EUR', external_id: 'spaced-key' },
        'a key ~ with !"# spaces',
      );
      expect(spaced.status).toBe(201);
    });

    it('is not required on the public sign-in route, nor on GET', async () => {
      await t.http.get('/v1/customers').set('Authorization', tenant.auth).expect(200);
      const signIn = await t.http.post('/v1/sessions').send({ email: 'nobody@example.com', password: 'whatever it is' });
      expectError(signIn, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    });
  });

  describe('replays', () => {
    it('replays a completed request byte-identically with Idempotent-Replayed: true and does it once', async () => {
      const key = idem();
      const body = { name: 'Replay GmbH', currency: 'EUR', external_id: 'replay-1', metadata: { tier: 'gold' } };
      const first = await postCustomer(body, key).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.headers.location).toBe(`/v1/customers/${first.body.id}`);

      const second = await postCustomer(body, key).expect(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.text).toBe(first.text);
      expect(second.headers.location).toBe(first.headers.location);
      expect(second.headers['content-type']).toMatch(/^application\/json/);
      // The request id belongs to the retry, not to the stored response.
      expect(second.headers['request-id']).not.toBe(first.headers['request-id']);

      const third = await postCustomer(body, key).expect(201);
      expect(third.text).toBe(first.text);
      expect(await customersWithExternalId('replay-1')).toBe(1);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('fingerprints the canonical body: the order of keys does not matter', async () => {
      const key = idem();
      const first = await postCustomer(
        { name: 'Ordered', currency: 'USD', external_id: 'ordered-1', metadata: { a: '1', b: '2' } },
        key,
      ).expect(201);
      const reordered = await postCustomer(
        { metadata: { b: '2', a: '1' }, external_id: 'ordered-1', currency: 'USD', name: 'Ordered' },
        key,
      ).expect(201);
      expect(reordered.headers['idempotent-replayed']).toBe('true');
      expect(reordered.text).toBe(first.text);
      expect(await customersWithExternalId('ordered-1')).toBe(1);
    });

    it('refuses the same key with another body: 422 IDEMPOTENCY_KEY_REUSED, nothing happens, the original still replays', async () => {
      const key = idem();
      const first = await postCustomer({ name: 'Original', currency: 'EUR', external_id: 'reused-1' }, key).expect(201);
      for (const other of [
        { name: 'Original', currency: 'EUR', external_id: 'reused-2' },
        { name: 'Original', currency: 'EUR' },
        { name: 'Original', currency: 'EUR', external_id: 'reused-1', email: 'x@example.com' },
      ]) {
        const reused = await postCustomer(other, key);
        expectError(reused, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
        expect(reused.body.error.param).toBe('Idempotency-Key');
        expect(reused.headers['idempotent-replayed']).toBeUndefined();
      }
      expect(await customersWithExternalId('reused-2')).toBe(0);
      expect(await customersWithExternalId('reused-1')).toBe(1);
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM customers WHERE organization_id = $1 AND name = 'Original'`,
        [tenant.organization_id],
      );
      expect(count).toBe(1);
      const again = await postCustomer({ name: 'Original', currency: 'EUR', external_id: 'reused-1' }, key).expect(201);
      expect(again.text).toBe(first.text);
    });
  });

  describe('what is stored', () => {
    it('stores and replays a 409 produced by the handler (duplicate external_id)', async () => {
      await postCustomer({ name: 'Taken', currency: 'EUR', external_id: 'dup-1' }, idem()).expect(201);
      const key = idem();
      const conflict = await postCustomer({ name: 'Taken again', currency: 'EUR', external_id: 'dup-1' }, key);
      expectError(conflict, 409, 'conflict_error', 'ALREADY_EXISTS');
      expect(conflict.body.error.param).toBe('external_id');
      const replay = await postCustomer({ name: 'Taken again', currency: 'EUR', external_id: 'dup-1' }, key);
      expect(replay.status).toBe(409);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(conflict.text);
      // The stored refusal names the original request's id, byte for byte.
      expect(replay.body.error.request_id).toBe(conflict.headers['request-id']);
      expect(await customersWithExternalId('dup-1')).toBe(1);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('stores a 400 produced by the handler itself (unknown currency): a corrected retry needs a new key', async () => {
      const key = idem();
      const refused = await postCustomer({ name: 'Bad currency', currency: 'EURO', external_id: 'handler-400' }, key);
      expectError(refused, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(refused.body.error.errors).toEqual([expect.objectContaining({ param: 'currency', code: 'INVALID_CURRENCY' })]);
      const replay = await postCustomer({ name: 'Bad currency', currency: 'EURO', external_id: 'handler-400' }, key);
      expect(replay.status).toBe(400);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(refused.text);
      const corrected = await postCustomer({ name: 'Bad currency', currency: 'EUR', external_id: 'handler-400' }, key);
      expectError(corrected, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      await postCustomer({ name: 'Bad currency', currency: 'EUR', external_id: 'handler-400' }, idem()).expect(201);
    });

    it('stores a 422 produced by the handler and rolls back its effects', async () => {
      const walletId = await emptyWallet();
      const before = await walletState(walletId);
      const key = idem();
      const refused = await adjustWallet(walletId, { amount: '-10.00' }, key);
      expectError(refused, 422, 'business_rule_error', 'INSUFFICIENT_FUNDS');
      const replay = await adjustWallet(walletId, { amount: '-10.00' }, key);
      expect(replay.status).toBe(422);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(refused.text);
      expect(await walletState(walletId)).toEqual(before);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('does not store a validation 400 (unknown field): the corrected retry with the same key runs', async () => {
      const key = idem();
      const invalid = await postCustomer({ name: 'Validated', currency: 'EUR', external_id: 'validated-1', balance: '10' }, key);
      expectError(invalid, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(invalid.body.error.errors).toEqual([expect.objectContaining({ param: 'balance', code: 'UNKNOWN_PARAMETER' })]);
      expect(await recordsForKey(key)).toBe(0);
      const again = await postCustomer({ name: 'Validated', currency: 'EUR', external_id: 'validated-1', balance: '10' }, key);
      expect(again.status).toBe(400);
      expect(again.headers['idempotent-replayed']).toBeUndefined();

      const corrected = await postCustomer({ name: 'Validated', currency: 'EUR', external_id: 'validated-1' }, key).expect(201);
      expect(corrected.headers['idempotent-replayed']).toBeUndefined();
      expect(await customersWithExternalId('validated-1')).toBe(1);
      const replay = await postCustomer({ name: 'Validated', currency: 'EUR', external_id: 'validated-1' }, key).expect(201);
      expect(replay.text).toBe(corrected.text);
    });

    it('does not store a 401 or a 403 (refused before the handler, or by it)', async () => {
      const key = idem();
      const unauthenticated = await postCustomer({ name: 'Nobody', currency: 'EUR' }, key, 'Bearer sk_live_nonsense');
      expectError(unauthenticated, 401, 'authentication_error', 'UNAUTHENTICATED');
      const reader = await createKey(t, tenant.auth, { name: 'reader', scopes: ['customers:read'] });
      const forbidden = await postCustomer({ name: 'Reader', currency: 'EUR' }, key, `Bearer ${reader.secret}`);
      expectError(forbidden, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
      expect(await recordsForKey(key)).toBe(0);

      // A 403 raised by the handler itself: the role is wider than the key's scopes.
      // What the viewer role grants (every read scope) and what inviting needs, from the catalog itself.
      const readAll = ['users:write', ...ALL_SCOPES.filter((scope) => scope.endsWith(':read'))];
      const inviter = await createKey(t, tenant.auth, { name: 'inviter', scopes: readAll });
      const userKey = idem();
      const notGrantable = await t.http
        .post('/v1/users')
        .set('Authorization', `Bearer ${inviter.secret}`)
        .set('Idempotency-Key', userKey)
        .send({ email: 'granted@example.com', password: 'a long enough password', role: 'developer' });
      expectError(notGrantable, 403, 'permission_error', 'SCOPE_NOT_GRANTABLE');
      expect(await recordsForKey(userKey)).toBe(0);
      const retried = await t.http
        .post('/v1/users')
        .set('Authorization', `Bearer ${inviter.secret}`)
        .set('Idempotency-Key', userKey)
        .send({ email: 'granted@example.com', password: 'a long enough password', role: 'viewer' });
      expect(retried.status).toBe(201);
      expect(retried.body).toEqual(expect.objectContaining({ object: 'user', role: 'viewer' }));
    });

    it('keeps nothing of a pure render: a PDF preview under a key stores its fingerprint only, and a replay renders again', async () => {
      const preview = (key: string) =>
        t.http
          .post(`/v1/document_templates/${SYSTEM_INVOICE_TEMPLATE}/preview`)
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', key)
          .buffer(true)
          .parse(binary)
          .send({});
      const keys = [idem(), idem(), idem(), idem(), idem()];
      const renders = [];
      for (const key of keys) renders.push(await preview(key).expect(200));
      expect(renders[0].body.length).toBeGreaterThan(1000);
      const stored = await db.query(
        `SELECT response_status, response_headers, octet_length(response_body) AS body_bytes
           FROM idempotency_records WHERE idempotency_key = ANY($1) ORDER BY idempotency_key`,
        [keys],
      );
      expect(stored).toEqual(keys.map(() => ({ response_status: 200, response_headers: {}, body_bytes: null })));
      const replay = await preview(keys[0]).expect(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe('application/pdf');
      expect(Buffer.compare(replay.body, renders[0].body)).toBe(0);
      const reused = await t.http
        .post(`/v1/document_templates/${SYSTEM_INVOICE_TEMPLATE}/preview`)
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', keys[0])
        .send({ document_type: 'CREDIT_NOTE' });
      expectError(reused, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      // A spoiled request (validation 400) binds nothing: the corrected request under the key renders.
      const spoiledKey = idem();
      const spoiled = await t.http
        .post(`/v1/document_templates/${SYSTEM_INVOICE_TEMPLATE}/preview`)
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', spoiledKey)
        .send({ colour: 'red' });
      expectError(spoiled, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(await recordsForKey(spoiledKey)).toBe(0);
      expect(Buffer.compare((await preview(spoiledKey).expect(200)).body, renders[0].body)).toBe(0);
      const otherRoute = await postCustomer({ name: 'Key of a render', currency: 'EUR', external_id: 'after-render' }, keys[1]);
      expectError(otherRoute, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      expect(await customersWithExternalId('after-render')).toBe(0);
    });

    it('keeps no response above IDEMPOTENCY_RESPONSE_MAX_BYTES: the request acts once, a replay answers 409 ALREADY_PROCESSED', async () => {
      const metadata = Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [`key_${index}`, randomBytes(250).toString('hex')]),
      );
      const key = idem();
      const body = { name: 'Heavy metadata', currency: 'EUR', external_id: 'heavy-1', metadata };
      const created = await postCustomer(body, key).expect(201);
      expect(created.body.metadata).toEqual(metadata);
      const [row] = await db.query(
        'SELECT response_status, octet_length(response_body) AS body_bytes FROM idempotency_records WHERE idempotency_key = $1',
        [key],
      );
      expect(row).toEqual({ response_status: 201, body_bytes: null });
      const replay = await postCustomer(body, key);
      expectError(replay, 409, 'idempotency_error', 'IDEMPOTENCY_KEY_ALREADY_PROCESSED');
      expect(replay.body.error.param).toBe('Idempotency-Key');
      expect(replay.body.error.details).toEqual({ response_kept: false, response_limit_bytes: RESPONSE_LIMIT });
      expectError(await postCustomer({ ...body, name: 'Other' }, key), 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      expect(await customersWithExternalId('heavy-1')).toBe(1);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('does not store a 5xx: the transaction rolls back, and a retry with the same key may act', async () => {
      const walletId = await emptyWallet();
      const before = await walletState(walletId);
      const key = idem();
      const body = { amount: '5.00', reason: 'boom' };
      // The handler's ledger INSERT fails in the database: an unexpected error, a 500.
      await db.query(`ALTER TABLE wallet_transactions ADD CONSTRAINT test_no_boom CHECK (reason IS DISTINCT FROM 'boom')`);
      try {
        const crashed = await adjustWallet(walletId, body, key);
        expectError(crashed, 500, 'api_error', 'INTERNAL_ERROR');
        expect(await recordsForKey(key)).toBe(0);
      } finally {
        await db.query(`ALTER TABLE wallet_transactions DROP CONSTRAINT test_no_boom`);
      }
      // Nothing of the failed request remains: neither the ledger line nor the balance update.
      expect(await walletState(walletId)).toEqual(before);
      const retried = await adjustWallet(walletId, body, key);
      expect(retried.status).toBe(200);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      expect(retried.body).toEqual(
        expect.objectContaining({ object: 'wallet_transaction', type: 'adjustment', amount: '5.00', reason: 'boom' }),
      );
      const after = await walletState(walletId);
      expect(after.transactions).toEqual([retried.body]);
      expect(after.wallet).toEqual(expect.objectContaining({ cash_balance: '5.00' }));
    });

    /**
     * A trigger that fails the customer's INSERT with a deadlock (40P01) until a moment `failFor`
     * milliseconds from now: what a tenant's shards moving on Citus do to its transactions for a few
     * seconds (test/citus/tenant-move).
     */
    async function deadlockingCustomerInserts(externalId: string, failFor: number): Promise<() => Promise<void>> {
      const name = `deadlock_${randomBytes(4).toString('hex')}`;
      await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.external_id = '${externalId}' AND clock_timestamp() < '${new Date(Date.now() + failFor).toISOString()}'::timestamptz THEN
            RAISE EXCEPTION 'deadlock detected (test)' USING ERRCODE = 'deadlock_detected';
          END IF;
          RETURN NEW;
        END $$`);
      await db.query(`CREATE TRIGGER ${name} BEFORE INSERT ON customers FOR EACH ROW EXECUTE FUNCTION ${name}()`);
      return async () => {
        await db.query(`DROP TRIGGER ${name} ON customers`);
        await db.query(`DROP FUNCTION ${name}()`);
      };
    }

    it('runs a transaction that keeps deadlocking for 4 s again until it commits: one 201, one customer', async () => {
      const externalId = `deadlocked-${idem()}`;
      const drop = await deadlockingCustomerInserts(externalId, 4000);
      try {
        const started = Date.now();
        const created = await postCustomer({ name: 'Patient', currency: 'EUR', external_id: externalId }, idem());
        expect(created.status).toBe(201);
        expect(created.body).toEqual(expect.objectContaining({ object: 'customer', external_id: externalId }));
        expect(Date.now() - started).toBeGreaterThanOrEqual(3500);
        expect(await customersWithExternalId(externalId)).toBe(1);
      } finally {
        await drop();
      }
    });

    it('answers 503 DATABASE_UNAVAILABLE with Retry-After when the deadlocks outlast 10 s: nothing kept, the key is free', async () => {
      const externalId = `deadlocked-${idem()}`;
      const key = idem();
      const drop = await deadlockingCustomerInserts(externalId, 60_000);
      try {
        const refused = await postCustomer({ name: 'Unlucky', currency: 'EUR', external_id: externalId }, key);
        expectError(refused, 503, 'api_error', 'DATABASE_UNAVAILABLE');
        expect(refused.headers['retry-after']).toBe('1');
        expect(await recordsForKey(key)).toBe(0);
        expect(await customersWithExternalId(externalId)).toBe(0);
      } finally {
        await drop();
      }
      const retried = await postCustomer({ name: 'Unlucky', currency: 'EUR', external_id: externalId }, key);
      expect(retried.status).toBe(201);
    });
  });

  describe('scope: (principal, workspace, key); the route and its parameters are part of the request', () => {
    it('keeps the same key independent for another principal', async () => {
      const key = idem();
      const body = { name: 'Shared key', currency: 'EUR' };
      const mine = await postCustomer(body, key).expect(201);
      const other = await createKey(t, tenant.auth, { name: 'other principal', scopes: ['customers:write', 'customers:read'] });
      const theirs = await postCustomer(body, key, `Bearer ${other.secret}`).expect(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
      // And a different body under that key is not "reused" for the other principal.
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM idempotency_records WHERE idempotency_key = $1`, [
        key,
      ]);
      expect(count).toBe(2);
    });

    it('keeps the same key independent on another workspace (X-Workspace-Id)', async () => {
      const workspace = await t.http
        .post('/v1/workspaces')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'Second live', slug: 'second-live', mode: 'live' })
        .expect(201);
      const key = idem();
      const body = { name: 'Per workspace', currency: 'EUR', external_id: 'per-workspace' };
      const live = await postCustomer(body, key).expect(201);
      expect(live.body.workspace_id).toBe(tenant.liveWorkspaceId);
      const second = await postCustomer(body, key, tenant.auth, { 'X-Workspace-Id': workspace.body.id }).expect(201);
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(second.body.workspace_id).toBe(workspace.body.id);
      const bySlug = await postCustomer(body, key, tenant.auth, { 'X-Workspace-Id': 'second-live' }).expect(201);
      expect(bySlug.headers['idempotent-replayed']).toBe('true');
      expect(bySlug.text).toBe(second.text);
      expect(await customersWithExternalId('per-workspace')).toBe(2);
    });

    it('refuses the same key on another route with 422 IDEMPOTENCY_KEY_REUSED; the bare path replays', async () => {
      const key = idem();
      const customer = await postCustomer({ name: 'Route A', currency: 'EUR', external_id: 'route-a' }, key).expect(201);
      const bare = await t.http
        .post('/customers')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', key)
        .send({ name: 'Route A', currency: 'EUR', external_id: 'route-a' })
        .expect(201);
      expect(bare.headers['idempotent-replayed']).toBe('true');
      expect(bare.text).toBe(customer.text);
      const walletId = await emptyWallet();
      const elsewhere = await adjustWallet(walletId, { amount: '1.00' }, key);
      expectError(elsewhere, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      expect((await walletState(walletId)).transactions).toEqual([]);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('makes one transfer from one key however the path is spelled: upper-case id, percent-encoded digit, no /v1', async () => {
      const source = await emptyWallet();
      const target = await emptyWallet();
      expect((await adjustWallet(source, { amount: '10.00' }, idem())).status).toBe(200);
      const key = idem();
      const body = { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: target, reason: 'once' };
      const transfer = (path: string) =>
        t.http.post(path).set('Authorization', tenant.auth).set('Idempotency-Key', key).send(body);
      const first = await transfer(`/v1/wallets/${source}/transfer`);
      expect(first.status).toBe(200);
      const encoded = source.replace(/\d/, (digit) => `%3${digit}`);
      for (const path of [
        `/v1/wallets/${source.toUpperCase()}/transfer`,
        `/v1/wallets/${encoded}/transfer`,
        `/wallets/${source}/transfer`,
      ]) {
        const again = await transfer(path);
        expect({ path, status: again.status, code: again.body.error?.code }).toEqual({
          path,
          status: 409,
          code: 'IDEMPOTENCY_KEY_ALREADY_PROCESSED',
        });
        expect(again.body.error.details).toEqual({ transfer_id: first.body.transfer_id });
      }
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM wallet_transfers WHERE source_wallet_id = $1', [
        source,
      ]);
      expect(count).toBe(1);
      expect((await walletState(source)).wallet).toEqual(expect.objectContaining({ cash_balance: '9.00' }));
    });

    it('replays byte-identically when the wallet id is spelled in upper case; another wallet with the key is refused', async () => {
      const walletId = await emptyWallet();
      const key = idem();
      const first = await adjustWallet(walletId, { amount: '2.00' }, key);
      expect(first.status).toBe(200);
      const upper = await adjustWallet(walletId.toUpperCase(), { amount: '2.00' }, key);
      expect(upper.headers['idempotent-replayed']).toBe('true');
      expect(upper.text).toBe(first.text);
      const other = await emptyWallet();
      expectError(await adjustWallet(other, { amount: '2.00' }, key), 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      expect((await walletState(walletId)).transactions).toHaveLength(1);
      expect((await walletState(other)).transactions).toEqual([]);
    });

    it('keeps two organizations apart even when their keys collide', async () => {
      const other = await createTenant(t);
      const key = idem();
      const mine = await postCustomer({ name: 'Mine', currency: 'EUR', external_id: 'collide' }, key).expect(201);
      const theirs = await postCustomer({ name: 'Theirs', currency: 'EUR', external_id: 'collide' }, key, other.auth).expect(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
      expect(theirs.text).not.toContain(mine.body.id);
    });
  });

  describe('concurrency', () => {
    /** Blocks every INSERT into customers until released; returns once a request waits on it. */
    async function blockCustomerInserts(): Promise<{ waitForBlockedInsert(): Promise<void>; release(): Promise<void> }> {
      const blocker = new Client({ connectionString: t.database.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE customers IN SHARE MODE');
      return {
        async waitForBlockedInsert() {
          for (let attempt = 0; attempt < 500; attempt += 1) {
            const [{ waiting }] = await db.query(
              `SELECT count(*)::int AS waiting FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO customers%'`,
            );
            if (waiting > 0) return;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          throw new Error('no request ever waited on the customers lock');
        },
        async release() {
          await blocker.query('COMMIT');
          await blocker.end();
        },
      };
    }

    it('answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After: 1 while the first request is in flight', async () => {
      const key = idem();
      const body = { name: 'In flight', currency: 'EUR', external_id: 'in-flight' };
      const lock = await blockCustomerInserts();
      let first: Promise<request.Response> | undefined;
      try {
        first = postCustomer(body, key).then((response) => response);
        await lock.waitForBlockedInsert();
        const concurrent = await postCustomer(body, key);
        expectError(concurrent, 409, 'idempotency_error', 'IDEMPOTENCY_KEY_IN_USE');
        expect(concurrent.headers['retry-after']).toBe('1');
        expect(concurrent.body.error.param).toBe('Idempotency-Key');
        const otherBody = await postCustomer({ ...body, name: 'Another body' }, key);
        expectError(otherBody, 409, 'idempotency_error', 'IDEMPOTENCY_KEY_IN_USE');
      } finally {
        await lock.release();
      }
      const completed = await first!;
      expect(completed.status).toBe(201);
      const replay = await postCustomer(body, key).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(completed.text);
      expect(await customersWithExternalId('in-flight')).toBe(1);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('replays a completed request even while another request holds its key (a stored record is final)', async () => {
      const key = idem();
      const body = { name: 'Held replay', currency: 'EUR', external_id: 'held-replay' };
      const completed = await postCustomer(body, key).expect(201);
      const holder = new Client({ connectionString: t.database.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        // The claim's own lock on this key's scope, as another in-flight replay would hold it.
        await holder.query(
          `SELECT pg_advisory_xact_lock(hashtextextended(
             concat_ws(E'\\n', organization_id, workspace_id, principal_id, method, route, idempotency_key), 0))
             FROM idempotency_records WHERE idempotency_key = $1`,
          [key],
        );
        const replay = await postCustomer(body, key).expect(201);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.text).toBe(completed.text);
        const otherBody = await postCustomer({ ...body, name: 'Another body' }, key);
        expectError(otherBody, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect(await customersWithExternalId('held-replay')).toBe(1);
    });

    /** A server of its own so that the 50 requests really travel in parallel. */
    async function parallel<T>(count: number, send: (agent: request.Agent, index: number) => Promise<T>): Promise<T[]> {
      const server = t.app.getHttpServer();
      const agent = request.agent(server);
      return Promise.all(Array.from({ length: count }, (_, index) => send(agent, index)));
    }

    it.each([1, 2, 3])(
      'R3 (round %i): 50 parallel requests with one key and one body make exactly one customer',
      async (round) => {
        const key = idem();
        const externalId = `r3-same-${round}-${key}`;
        const body = { name: 'Fifty', currency: 'EUR', external_id: externalId, metadata: { round: String(round) } };
        const responses = await parallel(50, (agent) =>
          agent.post('/v1/customers').set('Authorization', tenant.auth).set('Idempotency-Key', key).send(body),
        );

        const statuses = responses.map((response) => response.status);
        expect(statuses.filter((status) => status !== 201 && status !== 409)).toEqual([]);
        const created = responses.filter((response) => response.status === 201);
        expect(created.length).toBeGreaterThanOrEqual(1);
        expect(created.filter((response) => response.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
        expect(new Set(created.map((response) => response.text)).size).toBe(1);
        for (const refused of responses.filter((response) => response.status === 409)) {
          expect(refused.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
          expect(refused.headers['retry-after']).toBe('1');
        }

        const listed = await t.http
          .get(`/v1/customers?external_id=${encodeURIComponent(externalId)}`)
          .set('Authorization', tenant.auth)
          .expect(200);
        expect(listed.body.data).toHaveLength(1);
        expect(listed.body.data[0].id).toBe(created[0].body.id);
        expect(await customersWithExternalId(externalId)).toBe(1);
        expect(await recordsForKey(key)).toBe(1);
        const [{ events }] = await db.query(
          `SELECT count(*)::int AS events FROM outbox_events
            WHERE event_type = 'identity.customer_created' AND payload->>'customerId' = $1`,
          [created[0].body.id],
        );
        expect(events).toBe(1);
      },
    );

    it('R3: 50 parallel requests with one key that the handler refuses all get the one recorded refusal (or 409), nothing applied', async () => {
      const walletId = await emptyWallet();
      const before = await walletState(walletId);
      const key = idem();
      const responses = await parallel(50, (agent) =>
        agent
          .post(`/v1/wallets/${walletId}/adjust`)
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', key)
          .send({ amount: '-10.00', currency: 'EUR', reason: 'race' }),
      );
      const refused = responses.filter((response) => response.status === 422);
      expect(responses.filter((response) => response.status !== 422 && response.status !== 409)).toEqual([]);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused.filter((response) => response.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
      const bodies = new Set(refused.map((response) => response.text));
      expect(bodies.size).toBe(1);
      expect(refused[0].body.error.code).toBe('INSUFFICIENT_FUNDS');
      for (const busy of responses.filter((response) => response.status === 409)) {
        expect(busy.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      }
      expect(await walletState(walletId)).toEqual(before);
      expect(await recordsForKey(key)).toBe(1);
    });

    it('R3: 50 parallel requests with one key and 50 different bodies act at most once', async () => {
      const key = idem();
      const prefix = `r3-diff-${key}`;
      const responses = await parallel(50, (agent, index) =>
        agent
          .post('/v1/customers')
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', key)
          .send({ name: `Body ${index}`, currency: 'EUR', external_id: `${prefix}-${index}` }),
      );
      const created = responses.filter((response) => response.status === 201);
      expect(created).toHaveLength(1);
      expect(created[0].headers['idempotent-replayed']).toBeUndefined();
      for (const refused of responses.filter((response) => response.status !== 201)) {
        expect([409, 422]).toContain(refused.status);
        expect(refused.body.error.code).toBe(refused.status === 409 ? 'IDEMPOTENCY_KEY_IN_USE' : 'IDEMPOTENCY_KEY_REUSED');
        expect(refused.body.error.type).toBe('idempotency_error');
      }
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM customers WHERE external_id LIKE $1`, [
        `${prefix}-%`,
      ]);
      expect(count).toBe(1);
      const [row] = await db.query(`SELECT id, name FROM customers WHERE external_id LIKE $1`, [`${prefix}-%`]);
      expect(row).toEqual({ id: created[0].body.id, name: created[0].body.name });
      expect(await recordsForKey(key)).toBe(1);
    });
  });
});
