import request from 'supertest';
import { DataSource } from 'typeorm';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { ISO, UUID, expectError } from '../support/expectations';

// scrypt hashing and real PostgreSQL: the default 5 s is too tight on a busy 2-core machine.
jest.setTimeout(30_000);

describe('Customers', () => {
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  /** An sk_test key of the tenant: reaches the sandbox workspace. */
  let sandboxAuth: string;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    const session = await signIn(t, tenant.owner!.email, tenant.owner!.password);
    const sandboxKey = await createKey(
      t,
      session,
      { name: 'sandbox', scopes: ['customers:read', 'customers:write'] },
      { 'X-Workspace-Id': 'sandbox' },
    );
    expect(sandboxKey.secret).toMatch(/^sk_test_/);
    sandboxAuth = `Bearer ${sandboxKey.secret}`;
  });
  afterAll(() => t.close());

  function create(body: Record<string, unknown>, auth = tenant.auth): Promise<request.Response> {
    return t.http
      .post('/v1/customers')
      .set('Authorization', auth)
      .set('Idempotency-Key', idem())
      .send(body)
      .then((r) => r);
  }

  async function outboxCount(): Promise<number> {
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM outbox_events WHERE event_type = 'identity.customer_created'`,
    );
    return count;
  }

  describe('POST /v1/customers', () => {
    it('creates a customer: 201 with Location and the full resource', async () => {
      const response = await create({
        name: '  Acme GmbH ',
        currency: 'EUR',
        email: 'Billing@Acme.Example',
        external_id: 'crm-4711',
        metadata: { segment: 'enterprise' },
      });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'customer',
        workspace_id: tenant.liveWorkspaceId,
        name: 'Acme GmbH',
        email: 'billing@acme.example',
        currency: 'EUR',
        primary_wallet_id: expect.stringMatching(UUID),
        external_id: 'crm-4711',
        metadata: { segment: 'enterprise' },
        created_at: expect.stringMatching(ISO),
      });
      expect(response.headers.location).toBe(`/v1/customers/${response.body.id}`);
      const fetched = await t.http.get(response.headers.location).set('Authorization', tenant.auth).expect(200);
      expect(fetched.body).toEqual(response.body);
    });

    it('defaults the optional fields', async () => {
      const response = await create({ name: 'Minimal', currency: 'JPY' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual(
        expect.objectContaining({ name: 'Minimal', currency: 'JPY', email: null, external_id: null, metadata: {} }),
      );
    });

    it.each([
      ['eur', 'INVALID_CURRENCY'],
      ['XXX', 'INVALID_CURRENCY'],
      ['EURO', 'INVALID_CURRENCY'],
      ['', 'INVALID_CURRENCY'],
    ])('refuses the currency %j with 400 and creates nothing', async (currency, code) => {
      const before = await outboxCount();
      const response = await create({ name: 'Bad currency', currency, external_id: `bad-${currency}` });
      expectError(response, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(response.body.error.param).toBe('currency');
      expect(response.body.error.errors).toEqual([expect.objectContaining({ param: 'currency', code })]);
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM customers WHERE external_id = $1`, [
        `bad-${currency}`,
      ]);
      expect(count).toBe(0);
      expect(await outboxCount()).toBe(before);
    });

    it('refuses malformed bodies with 400 VALIDATION_ERROR', async () => {
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ currency: 'EUR' }, 'name', 'INVALID_TYPE'],
        [{ name: 'x', currency: 978 }, 'currency', 'INVALID_TYPE'],
        [{ name: '   ', currency: 'EUR' }, 'name', 'OUT_OF_RANGE'],
        [{ name: 'x', currency: 'EUR', email: 'not-an-email' }, 'email', 'INVALID_FORMAT'],
        [{ name: 'x', currency: 'EUR', metadata: { tier: 3 } }, 'metadata.tier', 'INVALID_VALUE'],
        [{ name: 'x', currency: 'EUR', metadata: ['a'] }, 'metadata', 'INVALID_TYPE'],
        [{ name: 'x', currency: 'EUR', external_id: 'e'.repeat(256) }, 'external_id', 'OUT_OF_RANGE'],
        [{ name: 'x', currency: 'EUR', id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d' }, 'id', 'UNKNOWN_PARAMETER'],
        [{ name: 'x', currency: 'EUR', workspace_id: tenant.sandboxWorkspaceId }, 'workspace_id', 'UNKNOWN_PARAMETER'],
      ];
      for (const [body, param, code] of cases) {
        const response = await create(body);
        expectError(response, 400, 'invalid_request_error', 'VALIDATION_ERROR');
        expect({ body, errors: response.body.error.errors }).toEqual({
          body,
          errors: expect.arrayContaining([expect.objectContaining({ param, code })]),
        });
      }
    });

    it('refuses a duplicate external_id in the workspace with 409 ALREADY_EXISTS, but not in another workspace', async () => {
      const first = await create({ name: 'Original', currency: 'EUR', external_id: 'dup-ext' });
      expect(first.status).toBe(201);
      const events = await outboxCount();
      const duplicate = await create({ name: 'Copy', currency: 'USD', external_id: 'dup-ext' });
      expectError(duplicate, 409, 'conflict_error', 'ALREADY_EXISTS');
      expect(duplicate.body.error.param).toBe('external_id');
      expect(await outboxCount()).toBe(events);
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM customers WHERE organization_id = $1 AND external_id = 'dup-ext'`,
        [tenant.organization_id],
      );
      expect(count).toBe(1);

      const sandbox = await create({ name: 'Sandbox twin', currency: 'EUR', external_id: 'dup-ext' }, sandboxAuth);
      expect(sandbox.status).toBe(201);
      expect(sandbox.body.workspace_id).toBe(tenant.sandboxWorkspaceId);
      const other = await createTenant(t);
      expect((await create({ name: 'Other org', currency: 'EUR', external_id: 'dup-ext' }, other.auth)).status).toBe(201);
    });

    it('creates customers in a workspace created a moment before (by id and by slug)', async () => {
      for (let i = 0; i < 10; i += 1) {
        const workspace = await t.http
          .post('/v1/workspaces')
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', idem())
          .send({ name: `Fresh ${i}`, slug: `fresh-${i}`, mode: 'live' })
          .expect(201);
        for (const reference of [workspace.body.id, `fresh-${i}`]) {
          const response = await t.http
            .post('/v1/customers')
            .set('Authorization', tenant.auth)
            .set('X-Workspace-Id', reference)
            .set('Idempotency-Key', idem())
            .send({ name: `In fresh ${i}`, currency: 'EUR' });
          expect({ reference, status: response.status, code: response.body.error?.code }).toEqual({
            reference,
            status: 201,
            code: undefined,
          });
          expect(response.body.workspace_id).toBe(workspace.body.id);
        }
      }
    });

    it('requires customers:write', async () => {
      const reader = await createKey(t, tenant.auth, { name: 'reader', scopes: ['customers:read'] });
      const refused = await create({ name: 'Read only', currency: 'EUR' }, `Bearer ${reader.secret}`);
      expectError(refused, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
      expect(refused.body.error.details).toEqual({ required_scope: 'customers:write' });
      await t.http.get('/v1/customers').set('Authorization', `Bearer ${reader.secret}`).expect(200);
      const writerOnly = await createKey(t, tenant.auth, { name: 'writer', scopes: ['customers:write'] });
      const list = await t.http.get('/v1/customers').set('Authorization', `Bearer ${writerOnly.secret}`);
      expectError(list, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
    });
  });

  describe('its primary wallet, in the same transaction', () => {
    function post(path: string, body: Record<string, unknown>, key = idem()): Promise<request.Response> {
      return t.http
        .post(path)
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .then((r) => r);
    }

    it('is listed and credited right after the 201, with no wait, 500 times in a row', async () => {
      const failures: Array<Record<string, unknown>> = [];
      let emptyLists = 0;
      for (let i = 0; i < 500; i += 1) {
        const created = await create({ name: `Funded at once ${i}`, currency: 'EUR' });
        const listed = await t.http.get(`/v1/wallets?customer_id=${created.body.id}`).set('Authorization', tenant.auth);
        const wallets: Array<{ id: string; customer_id: string; currency: string; is_primary: boolean }> = listed.body.data ?? [];
        if (wallets.length === 0) emptyLists += 1;
        const credited = await post(`/v1/wallets/${created.body.primary_wallet_id}/credit`, { amount: '1.00' });
        const primaryWalletId = created.body.primary_wallet_id;
        const [only] = wallets;
        const ok =
          created.status === 201 &&
          listed.status === 200 &&
          wallets.length === 1 &&
          only.id === primaryWalletId &&
          only.is_primary &&
          only.customer_id === created.body.id &&
          only.currency === 'EUR' &&
          credited.status === 200 &&
          credited.body.wallet_id === primaryWalletId;
        if (!ok) {
          failures.push({ i, created: created.status, primaryWalletId, wallets, credited: credited.status, body: credited.body });
        }
      }
      expect({ failures: failures.length, emptyLists, first: failures.slice(0, 2) }).toEqual({
        failures: 0,
        emptyLists: 0,
        first: [],
      });
    }, 300_000);

    it('rolls the customer back when its primary wallet cannot be opened: 500, nothing stored, the key stays free', async () => {
      const key = idem();
      const body = { name: 'Walletless', currency: 'NOK', external_id: 'walletless' };
      const count = async () => {
        const [row] = await db.query(
          `SELECT (SELECT count(*)::int FROM customers WHERE organization_id = $1) AS customers,
                  (SELECT count(*)::int FROM wallets WHERE organization_id = $1) AS wallets,
                  (SELECT count(*)::int FROM audit_events WHERE organization_id = $1) AS audit_events,
                  (SELECT count(*)::int FROM outbox_events WHERE organization_id = $1) AS outbox_events,
                  (SELECT count(*)::int FROM idempotency_records WHERE idempotency_key = $2) AS idempotency_records`,
          [tenant.organization_id, key],
        );
        return row;
      };
      const before = await count();
      // The wallet's INSERT fails in the database, after the customer's succeeded.
      await db.query(`ALTER TABLE wallets ADD CONSTRAINT test_no_nok CHECK (currency <> 'NOK') NOT VALID`);
      try {
        expectError(await post('/v1/customers', body, key), 500, 'api_error', 'INTERNAL_ERROR');
      } finally {
        await db.query(`ALTER TABLE wallets DROP CONSTRAINT test_no_nok`);
      }
      expect(await count()).toEqual(before);
      const retried = await post('/v1/customers', body, key);
      expect(retried.status).toBe(201);
      const listed = await t.http.get(`/v1/wallets?customer_id=${retried.body.id}`).set('Authorization', tenant.auth);
      expect(listed.body.data).toEqual([
        expect.objectContaining({ id: retried.body.primary_wallet_id, currency: 'NOK', is_primary: true }),
      ]);
    });
  });

  describe('the customer_created event', () => {
    it('is written to the outbox in the same transaction as the customer', async () => {
      const response = await create({ name: 'Evented', currency: 'CHF', external_id: 'evented' });
      expect(response.status).toBe(201);
      const rows = await db.query(
        `SELECT organization_id, event_type, payload, request_id FROM outbox_events
          WHERE event_type = 'identity.customer_created' AND payload->>'customerId' = $1`,
        [response.body.id],
      );
      expect(rows).toEqual([
        {
          organization_id: tenant.organization_id,
          event_type: 'identity.customer_created',
          payload: {
            organizationId: tenant.organization_id,
            workspaceId: tenant.liveWorkspaceId,
            customerId: response.body.id,
            currency: 'CHF',
            occurredAt: response.body.created_at,
            primaryWalletId: response.body.primary_wallet_id,
          },
          request_id: response.headers['request-id'],
        },
      ]);
    });

    it('is not written when the create is refused or replayed', async () => {
      const key = idem();
      const body = { name: 'Once', currency: 'EUR', external_id: 'evented-once' };
      const before = await outboxCount();
      await t.http.post('/v1/customers').set('Authorization', tenant.auth).set('Idempotency-Key', key).send(body).expect(201);
      await t.http.post('/v1/customers').set('Authorization', tenant.auth).set('Idempotency-Key', key).send(body).expect(201);
      expect(await outboxCount()).toBe(before + 1);
      expectError(await create(body), 409, 'conflict_error', 'ALREADY_EXISTS');
      expectError(await create({ ...body, currency: 'eur' }), 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(await outboxCount()).toBe(before + 1);
    });
  });

  describe('GET /v1/customers and GET /v1/customers/{id}', () => {
    let listTenant: TestTenant;
    const made: any[] = [];

    beforeAll(async () => {
      listTenant = await createTenant(t);
      for (let i = 0; i < 5; i += 1) {
        const response = await create(
          {
            name: `Listed ${i}`,
            currency: 'EUR',
            external_id: `list-${i}`,
            email: i % 2 === 0 ? 'even@example.com' : `odd-${i}@example.com`,
          },
          listTenant.auth,
        );
        expect(response.status).toBe(201);
        made.push(response.body);
      }
    });

    it('lists newest first with keyset cursors', async () => {
      const seen: any[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: request.Response = await t.http
          .get(`/v1/customers?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
          .set('Authorization', listTenant.auth)
          .expect(200);
        pages += 1;
        seen.push(...page.body.data);
        cursor = page.body.pagination.cursor;
        expect(page.body.pagination.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...made].reverse());
    });

    it('answers an empty list with a null cursor', async () => {
      const empty = await createTenant(t);
      const response = await t.http.get('/v1/customers').set('Authorization', empty.auth).expect(200);
      expect(response.body).toEqual({ data: [], pagination: { cursor: null, has_more: false } });
    });

    it('filters by external_id and by email (case-insensitively)', async () => {
      const byExternalId = await t.http.get('/v1/customers?external_id=list-3').set('Authorization', listTenant.auth).expect(200);
      expect(byExternalId.body.data).toEqual([made[3]]);
      const byEmail = await t.http.get('/v1/customers?email=EVEN@example.com').set('Authorization', listTenant.auth).expect(200);
      expect(byEmail.body.data).toEqual([made[4], made[2], made[0]]);
      const none = await t.http.get('/v1/customers?external_id=missing').set('Authorization', listTenant.auth).expect(200);
      expect(none.body).toEqual({ data: [], pagination: { cursor: null, has_more: false } });
    });

    it('binds cursors to their filters: 400 INVALID_CURSOR under other filters; unknown parameters are 400', async () => {
      const page = await t.http
        .get('/v1/customers?limit=1&email=even@example.com')
        .set('Authorization', listTenant.auth)
        .expect(200);
      const cursor = encodeURIComponent(page.body.pagination.cursor);
      const next = await t.http
        .get(`/v1/customers?limit=1&email=even@example.com&cursor=${cursor}`)
        .set('Authorization', listTenant.auth)
        .expect(200);
      expect(next.body.data).toEqual([made[2]]);
      const refused = await t.http.get(`/v1/customers?limit=1&cursor=${cursor}`).set('Authorization', listTenant.auth);
      expectError(refused, 400, 'invalid_request_error', 'INVALID_CURSOR');
      const elsewhere = await t.http.get(`/v1/users?cursor=${cursor}`).set('Authorization', listTenant.auth);
      expectError(elsewhere, 400, 'invalid_request_error', 'INVALID_CURSOR');
      const unknown = await t.http.get('/v1/customers?currency=EUR').set('Authorization', listTenant.auth);
      expectError(unknown, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(unknown.body.error.errors).toEqual([expect.objectContaining({ param: 'currency', code: 'UNKNOWN_PARAMETER' })]);
    });

    it('gets one customer; unknown or malformed ids are 404 CUSTOMER_NOT_FOUND', async () => {
      const got = await t.http.get(`/v1/customers/${made[1].id}`).set('Authorization', listTenant.auth).expect(200);
      expect(got.body).toEqual(made[1]);
      for (const id of ['0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d', 'not-a-uuid']) {
        const missing = await t.http.get(`/v1/customers/${id}`).set('Authorization', listTenant.auth);
        expectError(missing, 404, 'invalid_request_error', 'CUSTOMER_NOT_FOUND');
      }
    });

    it("hides another workspace's and another organization's customers (404, absent from lists)", async () => {
      const sandbox = await create({ name: 'Sandbox only', currency: 'EUR', external_id: 'sandbox-only' }, sandboxAuth);
      expect(sandbox.status).toBe(201);
      const live = await create({ name: 'Live only', currency: 'EUR', external_id: 'live-only' });
      expect(live.status).toBe(201);

      expectError(
        await t.http.get(`/v1/customers/${sandbox.body.id}`).set('Authorization', tenant.auth),
        404,
        'invalid_request_error',
        'CUSTOMER_NOT_FOUND',
      );
      expectError(
        await t.http.get(`/v1/customers/${live.body.id}`).set('Authorization', sandboxAuth),
        404,
        'invalid_request_error',
        'CUSTOMER_NOT_FOUND',
      );
      await t.http.get(`/v1/customers/${sandbox.body.id}`).set('Authorization', sandboxAuth).expect(200);

      const liveList = await t.http.get('/v1/customers?limit=200').set('Authorization', tenant.auth).expect(200);
      expect(liveList.body.data.map((customer: { id: string }) => customer.id)).not.toContain(sandbox.body.id);
      expect(
        liveList.body.data.every((customer: { workspace_id: string }) => customer.workspace_id === tenant.liveWorkspaceId),
      ).toBe(true);
      const sandboxList = await t.http.get('/v1/customers?limit=200').set('Authorization', sandboxAuth).expect(200);
      expect(sandboxList.body.data.map((customer: { id: string }) => customer.id)).not.toContain(live.body.id);

      expectError(
        await t.http.get(`/v1/customers/${made[0].id}`).set('Authorization', tenant.auth),
        404,
        'invalid_request_error',
        'CUSTOMER_NOT_FOUND',
      );
      const filtered = await t.http.get('/v1/customers?external_id=list-0').set('Authorization', tenant.auth).expect(200);
      expect(filtered.body.data).toEqual([]);
    });
  });
});
