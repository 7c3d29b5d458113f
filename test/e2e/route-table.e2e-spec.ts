import { randomUUID } from 'node:crypto';
import { Response } from 'supertest';
import { EVENT_TYPES, EventType, OutboxRelay } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { createScopelessKey, eventually, expectError, without } from '../support/auth-helpers';
import { bodyIdFields, concretePath, DocumentedOperation, documentedOperations, withField } from '../support/openapi-walk';
import { pathSpellings } from '../support/path-spellings';
import { objectMisfit } from '../support/event-schemas';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { seedVerification } from '../support/verification-helpers';

// The e2e project's testTimeout is not a per-project option in Jest: set it here.
jest.setTimeout(60_000);

/** Routes any caller may reach: health, sign-in, and provider webhooks (which verify their own signature). */
const PUBLIC = ['GET /health/live', 'GET /health/ready', 'POST /v1/sessions'];
const SIGNED_WEBHOOKS = /^POST \/v1\/webhooks\//;
/** Routes that need only an authenticated principal holding at least one scope. */
const AUTHENTICATION_ONLY = ['DELETE /v1/sessions/current', 'GET /v1/permissions'];
/**
 * Organization-level routes: they govern live workspaces too, so a sandbox principal never
 * reaches them (403 SANDBOX_PRINCIPAL_FORBIDDEN). Every other route is the sandbox's own share.
 */
const ORGANIZATION_LEVEL = [
  'GET /v1/users',
  'POST /v1/users',
  'GET /v1/workspaces',
  'POST /v1/workspaces',
  'PATCH /v1/workspaces/{id}',
  'GET /v1/audit_events',
];
/** Routes whose scope the contract takes from another resource than their path's (api-contract §4). */
const SCOPED_BY_ANOTHER_RESOURCE: Record<string, string> = { 'POST /v1/events/{id}/redeliver': 'webhook_endpoints' };
/** Bodies that pass validation, so that a live id is refused for what it is (404), not for the body. */
const VALID_BODIES: Record<string, object> = {
  'POST /v1/wallets/{id}/credit': { amount: '1.00' },
  'POST /v1/wallets/{id}/debit': { amount: '1.00' },
  'POST /v1/wallets/{id}/adjust': { amount: '1.00' },
  'POST /v1/wallets/{id}/holds': { amount: '1.00' },
  'POST /v1/wallets/{id}/transfer': { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: randomUUID() },
  'POST /v1/wallets/{id}/top_ups': { mode: 'hosted_checkout', amount: '5.00' },
  'POST /v1/wallet_debits': { debits: [{ wallet_id: randomUUID(), amount: '1.00' }] },
  'POST /v1/customers/{id}/payment_methods': { token: 'pm_card_visa' },
  'PATCH /v1/workspaces/{id}': { name: 'Hijacked', settings: { approval_required_for: [] } },
  'PATCH /v1/api_keys/{id}': { name: 'Hijacked', scopes: ['customers:read'] },
  'PATCH /v1/customer_verifications/{id}': { status: 'manual' },
  'POST /v1/test_helpers/customer_verifications': { customer_id: randomUUID(), verification_type: 'kyc' },
  'PATCH /v1/document_templates/{id}': { expected_version: 1, name: 'Hijacked' },
  'POST /v1/products/{id}/costs': { key: 'hijacked', amount: '1.00' },
  'PATCH /v1/costs/{id}': { amount: '2.00' },
  'PATCH /v1/products/{id}': { name: 'Hijacked' },
  'POST /v1/products/{id}/draft': {},
  'PATCH /v1/plans/{id}': { name: 'Hijacked' },
  'POST /v1/plans/{id}/products': { product_id: randomUUID() },
  'PATCH /v1/plans/{id}/products/{product_id}': { max_quantity: 2 },
  'PATCH /v1/plans/{id}/versions/{version}': { release_name: 'Hijacked' },
  'POST /v1/plans/republish': { plan_ids: [randomUUID()] },
  'POST /v1/plans/{id}/migrate': { mode: 'PREVIEW', target_version: 1 },
  'PATCH /v1/webhook_endpoints/{id}': { description: 'Hijacked', enabled_events: ['*'] },
  'POST /v1/events/{id}/redeliver': { endpoint_id: randomUUID() },
};
/** Body fields named `…_id` that hold the caller's own text, not a reference to a resource. */
const NOT_REFERENCES = ['external_id'];

/**
 * A catalog of one organization's workspace: an ORG cost whose value change started a cascade
 * run, a live product, and a pending change scheduled on it. Keyed by the collection naming them.
 */
async function catalogResources(t: TestApp, auth: string): Promise<Record<string, string>> {
  const send = (method: 'post' | 'patch', path: string, body: object) =>
    t.http[method](path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body);
  const cost = (await send('post', '/v1/costs', { key: 'route_table_fee', amount: '1.00' }).expect(201)).body;
  const product = (
    await send('post', '/v1/products', { name: 'Route table', price_expression: 'route_table_fee * 2' }).expect(201)
  ).body;
  const publish = (scheduledFor?: string) =>
    send('post', '/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'product',
      subject_id: product.id,
      staged_version_id: product.draft_version.id,
      ...(scheduledFor ? { scheduled_for: scheduledFor } : {}),
    }).expect(201);
  await publish();
  const run = (await send('patch', `/v1/costs/${cost.id}`, { amount: '2.00' }).expect(200)).body.cascade_run_id;
  product.draft_version = (
    await send('patch', `/v1/products/${product.id}`, { price_expression: 'route_table_fee * 3' }).expect(200)
  ).body.draft_version;
  const change = (await publish('2099-01-01T00:00:00Z')).body.id;
  const plan = (await send('post', '/v1/plans', { name: 'Route table plan' }).expect(201)).body;
  await send('post', `/v1/plans/${plan.id}/products`, { product_id: product.id }).expect(201);
  await send('post', '/v1/changes', {
    operation: 'catalog.publish_version',
    subject_kind: 'plan',
    subject_id: plan.id,
    staged_version_id: plan.draft_version.id,
  }).expect(201);
  // The run's jobs finish now, not while a walk compares digests of the data.
  await eventually(async () => {
    const status = (await t.http.get(`/v1/cascade_runs/${run}`).set('Authorization', auth).expect(200)).body.status;
    return status === 'completed' ? status : undefined;
  }, 10_000);
  return {
    costs: cost.id,
    products: product.id,
    changes: change,
    cascade_runs: run,
    plans: plan.id,
    ...(await subscriptionResources(t, auth, product.id)),
  };
}

/** A live plan on the product, a subscription to it, and a migration scheduled for later. */
async function subscriptionResources(t: TestApp, auth: string, productId: string): Promise<Record<string, string>> {
  const send = (path: string, body: object) =>
    t.http.post(path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body);
  const plan = (await send('/v1/plans', { name: 'Route table plan' }).expect(201)).body;
  const draft = (await send(`/v1/plans/${plan.id}/products`, { product_id: productId }).expect(201)).body.draft_version;
  await send('/v1/changes', {
    operation: 'catalog.publish_version',
    subject_kind: 'plan',
    subject_id: plan.id,
    staged_version_id: draft.id,
  }).expect(201);
  const customer = (await send('/v1/customers', { name: 'Route table subscriber', currency: 'EUR' }).expect(201)).body.id;
  const subscription = (await send('/v1/subscriptions', { customer_id: customer, plan_id: plan.id }).expect(201)).body.id;
  const migration = (
    await send(`/v1/plans/${plan.id}/migrate`, {
      mode: 'SCHEDULED',
      target_version: 1,
      scheduled_at: '2099-01-01T00:00:00Z',
    }).expect(200)
  ).body.migration_id;
  return { subscriptions: subscription, migrations: migration };
}

describe('Route table: every documented route enforces authentication, scope and tenancy', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let operations: DocumentedOperation[];
  let catalog: string[];
  let document: any;

  beforeAll(async () => {
    t = await createTestApp();
    a = await createTenant(t, { withOwner: true });
    b = await createTenant(t);
    document = (await t.http.get('/openapi.json').expect(200)).body;
    operations = documentedOperations(document);
    const permissions = await t.http.get('/v1/permissions').set('Authorization', a.auth).expect(200);
    catalog = permissions.body.data.map((entry: { scope: string }) => entry.scope);
  });
  afterAll(() => t.close());

  /** Calls an operation the way a client would: a JSON body on writes, always an Idempotency-Key. */
  function call(
    operation: DocumentedOperation,
    auth: string | undefined,
    path = concretePath(operation.path),
    body: object = {},
  ) {
    let request = t.http[operation.method](path).set('Idempotency-Key', idem());
    if (auth !== undefined) request = request.set('Authorization', auth);
    return operation.method === 'get' || operation.method === 'delete' ? request : request.send(body);
  }

  function secured(): DocumentedOperation[] {
    return operations.filter((operation) => operation.secured);
  }

  it('documents every registered route, and registers every documented one', async () => {
    const registered = new Set(
      t.routes
        .filter((route) => /^(GET|POST|PUT|PATCH|DELETE) \/(v1|health)(\/|$)/.test(route))
        .map((route) => route.replace(/:(\w+)/g, '{$1}')),
    );
    const documented = new Set(operations.map((operation) => operation.label));
    expect([...registered].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
    expect(secured().length).toBeGreaterThanOrEqual(15);
  });

  it('leaves only health, sign-in (and signed provider webhooks) without security', async () => {
    const open = operations.filter((operation) => !operation.secured).map((operation) => operation.label);
    expect(open.filter((label) => !SIGNED_WEBHOOKS.test(label)).sort()).toEqual([...PUBLIC].sort());
    // And they really answer without credentials.
    await t.http.get('/health/live').expect(200);
    await t.http.get('/health/ready').expect(200);
    const signIn = await t.http.post('/v1/sessions').send({ email: a.owner!.email, password: 'wrong password' });
    expectError(signIn, 401, 'INVALID_CREDENTIALS');
  });

  it('declares a scope on every secured route: <resource>:read for GET, <resource>:write for the rest', async () => {
    for (const operation of secured()) {
      if (AUTHENTICATION_ONLY.includes(operation.label)) {
        expect({ route: operation.label, scope: operation.scope }).toEqual({ route: operation.label, scope: undefined });
        continue;
      }
      expect({ route: operation.label, scope: operation.scope }).toEqual({ route: operation.label, scope: expect.any(String) });
      const [resource, access] = operation.scope!.split(':');
      expect({ route: operation.label, access }).toEqual({
        route: operation.label,
        access: operation.method === 'get' || operation.pure ? 'read' : 'write',
      });
      expect(catalog).toContain(operation.scope);
      const segment = SCOPED_BY_ANOTHER_RESOURCE[operation.label] ?? operation.path.split('/')[2];
      if (catalog.includes(`${segment}:read`))
        expect({ route: operation.label, resource }).toEqual({ route: operation.label, resource: segment });
    }
  });

  it('refuses anonymous callers on every secured route with 401 UNAUTHENTICATED', async () => {
    for (const operation of secured()) {
      const response = await call(operation, undefined);
      expect({ route: operation.label, status: response.status, code: response.body?.error?.code }).toEqual({
        route: operation.label,
        status: 401,
        code: 'UNAUTHENTICATED',
      });
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('refuses a key without scopes on every secured route with 403 INSUFFICIENT_SCOPE', async () => {
    const key = await createScopelessKey(t, a);
    for (const operation of secured()) {
      const response = await call(operation, `Bearer ${key.secret}`);
      expect({ route: operation.label, status: response.status, code: response.body?.error?.code }).toEqual({
        route: operation.label,
        status: 403,
        code: 'INSUFFICIENT_SCOPE',
      });
      expect(response.body.error.details).toEqual({ required_scope: operation.scope ?? '*' });
    }
  });

  it('refuses a key holding every scope but the route’s own with 403 INSUFFICIENT_SCOPE', async () => {
    const scopes = [...new Set(secured().flatMap((operation) => (operation.scope ? [operation.scope] : [])))];
    for (const scope of scopes) {
      const key = await createKey(t, a.auth, { name: `all but ${scope}`, scopes: catalog.filter((entry) => entry !== scope) });
      for (const operation of secured().filter((candidate) => candidate.scope === scope)) {
        const response = await call(operation, `Bearer ${key.secret}`);
        expect({ route: operation.label, status: response.status, code: response.body?.error?.code }).toEqual({
          route: operation.label,
          status: 403,
          code: 'INSUFFICIENT_SCOPE',
        });
        expect(response.body.error.details).toEqual({ required_scope: scope });
      }
    }
  });

  it('lets the root key through the guard on every secured route (the refusals above are about scope)', async () => {
    for (const operation of secured()) {
      const response = await call(operation, b.auth);
      const code = response.body?.error?.code;
      expect({ route: operation.label, code }).not.toEqual({
        route: operation.label,
        code: expect.stringMatching(/^(UNAUTHENTICATED|INSUFFICIENT_SCOPE|ROUTE_NOT_FOUND|METHOD_NOT_ALLOWED|INTERNAL_ERROR)$/),
      });
      expect(response.status).toBeLessThan(500);
    }
  });

  it('replays one Idempotency-Key on every POST route naming an id, however its path is spelled', async () => {
    const exercised: string[] = [];
    for (const operation of secured().filter((candidate) => candidate.method === 'post' && candidate.path.includes('{'))) {
      const key = idem();
      const path = concretePath(operation.path);
      const send = (spelled: string) => t.http.post(spelled).set('Authorization', b.auth).set('Idempotency-Key', key).send({});
      const first = await send(path);
      // Only an answer the handler gave is stored; a refusal before it (validation) runs afresh every time.
      if ((await send(path)).headers['idempotent-replayed'] !== 'true') continue;
      for (const { spelling, path: spelled } of pathSpellings(path)) {
        const again = await send(spelled);
        expect({ route: operation.label, spelling, replayed: again.headers['idempotent-replayed'], text: again.text }).toEqual({
          route: operation.label,
          spelling,
          replayed: 'true',
          text: first.text,
        });
      }
      exercised.push(operation.label);
    }
    expect(exercised).toEqual(expect.arrayContaining(['POST /v1/api_keys/{id}/rotate', 'POST /v1/api_keys/{id}/revoke']));
  });

  describe('sandbox: a sk_test key holding every scope never reaches live data or organization-level routes', () => {
    let s: TestTenant;
    /** The organization's live resources, by the collection that names them. */
    const live: Record<string, string> = {};

    /**
     * A digest of every row of live data of the organization: each table with an organization_id,
     * restricted to live workspaces where it has a workspace_id (found in the catalog, so a table
     * added later is covered too); last_used_at is bookkeeping, not data.
     */
    async function liveDigest(): Promise<Record<string, string>> {
      const db = t.app.get(DataSource);
      const tables: Array<{ table_name: string; scoped: boolean }> = await db.query(
        `SELECT c.table_name, bool_or(w.column_name IS NOT NULL) AS scoped
           FROM information_schema.columns c
           JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
                                              AND tb.table_type = 'BASE TABLE'
           LEFT JOIN information_schema.columns w ON w.table_schema = c.table_schema AND w.table_name = c.table_name
                                                  AND w.column_name = 'workspace_id'
          WHERE c.table_schema = 'public' AND c.column_name = 'organization_id'
          GROUP BY c.table_name ORDER BY c.table_name`,
      );
      const digest: Record<string, string> = {};
      for (const { table_name: table, scoped } of tables) {
        const [{ hash }] = await db.query(
          `SELECT md5(coalesce(string_agg((to_jsonb(x) - 'last_used_at')::text, ',' ORDER BY (to_jsonb(x) - 'last_used_at')::text), ''))
                    AS hash
             FROM "${table}" x
            WHERE organization_id = $1
              ${scoped ? `AND workspace_id IN (SELECT id FROM workspaces WHERE organization_id = $1 AND mode = 'live')` : ''}`,
          [s.organization_id],
        );
        digest[table] = hash;
      }
      return digest;
    }

    beforeAll(async () => {
      s = await createTenant(t, { withOwner: true });
      const post = (path: string, body: object, auth = s.auth) =>
        t.http.post(path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body);
      live.customers = (await post('/v1/customers', { name: 'Live customer', currency: 'EUR' }).expect(201)).body.id;
      live.customer_verifications = await seedVerification(t, s, s.liveWorkspaceId, live.customers);
      live.wallets = await eventually(async () => {
        const wallets = await t.http.get(`/v1/wallets?customer_id=${live.customers}`).set('Authorization', s.auth);
        return wallets.body.data?.[0]?.id;
      }, 5000);
      await post(`/v1/wallets/${live.wallets}/credit`, { amount: '10.00' }).expect(200);
      live.hold_id = (await post(`/v1/wallets/${live.wallets}/holds`, { amount: '1.00' }).expect(201)).body.id;
      live.api_keys = (await createKey(t, s.auth, { name: 'live key', scopes: ['customers:read'] })).id;
      live.document_templates = (await post('/v1/document_templates', { name: 'Live invoice layout' }).expect(201)).body.id;
      await t.http
        .put(`/v1/document_templates/${live.document_templates}/defaults/invoice`)
        .set('Authorization', s.auth)
        .expect(200);
      live.workspaces = (
        await post('/v1/workspaces', { name: 'Second live', slug: 'second-live', mode: 'live' }).expect(201)
      ).body.id;
      await t.http.put('/v1/fx_rates/USD/EUR').set('Authorization', s.auth).send({ rate: '0.9' }).expect(200);
      await t.http
        .patch(`/v1/workspaces/${s.liveWorkspaceId}`)
        .set('Authorization', s.auth)
        .send({ settings: { approval_required_for: ['wallet.adjust'] } })
        .expect(200);
      const owner = await signIn(t, s.owner!.email, s.owner!.password);
      live.approvals = (await post(`/v1/wallets/${live.wallets}/adjust`, { amount: '2.00' }, owner).expect(202)).body.approval.id;
      Object.assign(live, await catalogResources(t, s.auth));
      live.webhook_endpoints = (
        await post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/live-hook', enabled_events: ['*'] }).expect(201)
      ).body.id;
      live.events = (await t.http.get('/v1/events?limit=1').set('Authorization', s.auth).expect(200)).body.data[0].id;
    });

    it('refuses exactly the organization-level routes with 403 SANDBOX_PRINCIPAL_FORBIDDEN; every other route answers (< 500)', async () => {
      const documented = secured().map((operation) => operation.label);
      expect(documented).toEqual(expect.arrayContaining(ORGANIZATION_LEVEL));
      const refused: string[] = [];
      for (const operation of secured()) {
        const response = await call(operation, s.sandboxAuth, concretePath(operation.path), VALID_BODIES[operation.label] ?? {});
        const code = response.body?.error?.code;
        expect({ route: operation.label, code }).not.toEqual({
          route: operation.label,
          code: expect.stringMatching(/^(UNAUTHENTICATED|INSUFFICIENT_SCOPE|INTERNAL_ERROR)$/),
        });
        expect({ route: operation.label, server_error: response.status >= 500 }).toEqual({
          route: operation.label,
          server_error: false,
        });
        if (code === 'SANDBOX_PRINCIPAL_FORBIDDEN') {
          expect(response.status).toBe(403);
          refused.push(operation.label);
        }
      }
      expect(refused.sort()).toEqual([...ORGANIZATION_LEVEL].sort());
    });

    it('answers every route naming a live resource exactly as for an unknown id (404), and leaves live data untouched', async () => {
      const before = await liveDigest();
      expect(Object.keys(before)).toEqual(expect.arrayContaining(['customers', 'wallets', 'api_keys', 'fx_rates']));
      const exercised: string[] = [];
      for (const operation of secured().filter((candidate) => /\{id\}/.test(candidate.path))) {
        const id = live[operation.path.split('/')[2]];
        if (!id) continue;
        const body = VALID_BODIES[operation.label] ?? {};
        const ids = { id, hold_id: live.hold_id, document_type: 'invoice', version: '1' };
        const onLive = await call(operation, s.sandboxAuth, concretePath(operation.path, ids), body);
        const unknown = await call(
          operation,
          s.sandboxAuth,
          concretePath(operation.path, { id: randomUUID(), document_type: 'invoice', version: '1' }),
          body,
        );
        const seen = { route: operation.label, status: onLive.status, code: onLive.body?.error?.code };
        expect(seen).toEqual({ route: operation.label, status: unknown.status, code: unknown.body?.error?.code });
        expect(seen.status).toBeGreaterThanOrEqual(400);
        if (!ORGANIZATION_LEVEL.includes(operation.label)) expect(seen.status).toBe(404);
        exercised.push(`${operation.label} ${seen.status}`);
      }
      expect(exercised).toEqual(
        expect.arrayContaining([
          'GET /v1/customers/{id} 404',
          'GET /v1/customer_verifications/{id} 404',
          'PATCH /v1/customer_verifications/{id} 404',
          'GET /v1/wallets/{id} 404',
          'PATCH /v1/document_templates/{id} 404',
          'POST /v1/document_templates/{id}/preview 404',
          'GET /v1/document_templates/{id}/thumbnail 404',
          'PUT /v1/document_templates/{id}/defaults/{document_type} 404',
          'DELETE /v1/document_templates/{id}/defaults/{document_type} 404',
          'POST /v1/wallets/{id}/credit 404',
          'POST /v1/wallets/{id}/adjust 404',
          'GET /v1/wallets/{id}/holds/{hold_id} 404',
          'POST /v1/wallets/{id}/holds/{hold_id}/capture 404',
          'POST /v1/api_keys/{id}/rotate 404',
          'POST /v1/api_keys/{id}/revoke 404',
          'PATCH /v1/api_keys/{id} 404',
          'POST /v1/approvals/{id}/approve 404',
          'GET /v1/approvals/{id} 404',
          'PATCH /v1/workspaces/{id} 403',
          'GET /v1/costs/{id} 404',
          'PATCH /v1/costs/{id} 404',
          'DELETE /v1/costs/{id} 404',
          'POST /v1/costs/{id}/restore 404',
          'GET /v1/costs/{id}/consumers 404',
          'GET /v1/products/{id} 404',
          'PATCH /v1/products/{id} 404',
          'POST /v1/products/{id}/costs 404',
          'POST /v1/products/{id}/draft 404',
          'DELETE /v1/products/{id}/draft 404',
          'GET /v1/products/{id}/versions 404',
          'GET /v1/changes/{id} 404',
          'POST /v1/changes/{id}/cancel 404',
          'GET /v1/cascade_runs/{id} 404',
          'GET /v1/cascade_runs/{id}/tasks 404',
          'GET /v1/plans/{id} 404',
          'PATCH /v1/plans/{id} 404',
          'DELETE /v1/plans/{id} 404',
          'POST /v1/plans/{id}/copy 404',
          'POST /v1/plans/{id}/products 404',
          'GET /v1/plans/{id}/versions/{version} 404',
          'GET /v1/plans/{id}/publish_impact 404',
          'GET /v1/plans/{id}/publish_check 404',
          'GET /v1/plans/{id}/versions/{version}/supersede_forecast 404',
          'GET /v1/plans/{id}/versions/{version}/referrers 404',
          'GET /v1/plans/{id}/versions/{version}/usage 404',
          'GET /v1/subscriptions/{id} 404',
          'POST /v1/subscriptions/{id}/cancel 404',
          'GET /v1/migrations/{id} 404',
          'GET /v1/migrations/{id}/outcomes 404',
          'POST /v1/migrations/{id}/cancel 404',
          'GET /v1/webhook_endpoints/{id} 404',
          'PATCH /v1/webhook_endpoints/{id} 404',
          'DELETE /v1/webhook_endpoints/{id} 404',
          'POST /v1/webhook_endpoints/{id}/rotate_secret 404',
          'GET /v1/webhook_endpoints/{id}/deliveries 404',
          'GET /v1/events/{id} 404',
          'POST /v1/events/{id}/redeliver 404',
        ]),
      );

      // A batch of debits names its wallets in its body: a live one is that item's 404, exactly as an unknown one.
      const debit = (walletId: string) =>
        t.http
          .post('/v1/wallet_debits')
          .set('Authorization', s.sandboxAuth)
          .set('Idempotency-Key', idem())
          .send({ debits: [{ wallet_id: walletId, amount: '1.00' }] });
      const itemOf = (response: Response) => ({
        status: response.status,
        items: response.body.data.map((item: any) => ({ ...item, error: without(item.error, 'request_id') })),
      });
      const onLive = itemOf(await debit(live.wallets));
      expect(onLive).toEqual(itemOf(await debit(randomUUID())));
      expect(onLive.items).toEqual([{ index: 0, status: 404, error: expect.objectContaining({ code: 'WALLET_NOT_FOUND' }) }]);

      // The sandbox's own FX rate is its own: set it, and live neither lists nor uses it.
      await t.http.put('/v1/fx_rates/USD/EUR').set('Authorization', s.sandboxAuth).send({ rate: '1000' }).expect(200);
      const liveRates = await t.http.get('/v1/fx_rates').set('Authorization', s.auth).expect(200);
      expect(liveRates.body.data).toEqual([expect.objectContaining({ from_currency: 'USD', to_currency: 'EUR', rate: '0.9' })]);
      // Nor does a sandbox principal see live keys.
      const keys = await t.http.get('/v1/api_keys?limit=200').set('Authorization', s.sandboxAuth).expect(200);
      expect(keys.body.data.map((row: { id: string }) => row.id)).not.toEqual(expect.arrayContaining([live.api_keys]));
      expect(keys.body.data.every((row: { key_type: string }) => row.key_type === 'sk_test')).toBe(true);

      expect(await liveDigest()).toEqual(before);
    });
  });

  describe('tenancy: another organization’s resources are 404 on every route that names them', () => {
    /** Organization A's resources by collection; `code` is the 404 code of the resources this suite owns. */
    const resources: Record<string, { id: string; code?: string }> = {};
    let session: string;
    let keySecret: string;

    async function snapshot(): Promise<unknown> {
      const get = async (path: string, workspace?: string) => {
        let request = t.http.get(path).set('Authorization', session);
        if (workspace) request = request.set('X-Workspace-Id', workspace);
        const response: Response = await request.expect(200);
        const rows = response.body.data ?? [response.body];
        return rows.map((row: Record<string, unknown>) => without(row, 'last_used_at'));
      };
      return {
        api_keys: await get('/v1/api_keys?limit=200'),
        workspaces: await get('/v1/workspaces?limit=200'),
        customers: await get('/v1/customers?limit=200'),
        sandbox_customers: await get('/v1/customers?limit=200', 'sandbox'),
        wallet: resources.wallets ? await get(`/v1/wallets/${resources.wallets.id}`) : null,
      };
    }

    beforeAll(async () => {
      session = await signIn(t, a.owner!.email, a.owner!.password);
      const key = await createKey(t, a.auth, { name: 'A key', scopes: ['customers:read'] });
      resources.api_keys = { id: key.id, code: 'API_KEY_NOT_FOUND' };
      keySecret = key.secret;
      const workspace = await t.http
        .post('/v1/workspaces')
        .set('Authorization', a.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'A workspace', slug: 'a-workspace', mode: 'live' })
        .expect(201);
      resources.workspaces = { id: workspace.body.id, code: 'WORKSPACE_NOT_FOUND' };
      const customer = await t.http
        .post('/v1/customers')
        .set('Authorization', a.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'A customer', currency: 'EUR' })
        .expect(201);
      resources.customers = { id: customer.body.id, code: 'CUSTOMER_NOT_FOUND' };
      resources.customer_verifications = {
        id: await seedVerification(t, a, a.liveWorkspaceId, customer.body.id),
        code: 'VERIFICATION_NOT_FOUND',
      };
      // The customer's primary wallet, opened with it (the 201 names it): its routes are walked too.
      expect(customer.body.primary_wallet_id).toEqual(expect.any(String));
      resources.wallets = { id: customer.body.primary_wallet_id };
      const template = await t.http
        .post('/v1/document_templates')
        .set('Authorization', a.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'A layout' })
        .expect(201);
      resources.document_templates = { id: template.body.id, code: 'DOCUMENT_TEMPLATE_NOT_FOUND' };
      const catalog = await catalogResources(t, a.auth);
      resources.costs = { id: catalog.costs, code: 'COST_NOT_FOUND' };
      resources.products = { id: catalog.products, code: 'PRODUCT_NOT_FOUND' };
      resources.changes = { id: catalog.changes, code: 'CHANGE_NOT_FOUND' };
      resources.cascade_runs = { id: catalog.cascade_runs, code: 'CASCADE_RUN_NOT_FOUND' };
      resources.plans = { id: catalog.plans, code: 'PLAN_NOT_FOUND' };
      resources.subscriptions = { id: catalog.subscriptions, code: 'SUBSCRIPTION_NOT_FOUND' };
      resources.migrations = { id: catalog.migrations, code: 'MIGRATION_NOT_FOUND' };
      const endpoint = await t.http
        .post('/v1/webhook_endpoints')
        .set('Authorization', a.auth)
        .set('Idempotency-Key', idem())
        .send({ url: 'http://127.0.0.1:9/a-hook', enabled_events: ['*'] })
        .expect(201);
      resources.webhook_endpoints = { id: endpoint.body.id, code: 'WEBHOOK_ENDPOINT_NOT_FOUND' };
      const events = await t.http.get('/v1/events?type=customer.created').set('Authorization', a.auth).expect(200);
      resources.events = {
        id: events.body.data.find((event: any) => event.data.object.id === customer.body.id).id,
        code: 'EVENT_NOT_FOUND',
      };
    });

    it('answers organization B on every route naming an organization A resource exactly as for an unknown id: 404', async () => {
      const before = await snapshot();
      const exercised: string[] = [];
      const named = secured().filter((operation) => /^\/v1\/[a-z_]+\/\{id\}/.test(operation.path));
      for (const operation of named) {
        const resource = resources[operation.path.split('/')[2]];
        if (!resource) continue;
        const body =
          VALID_BODIES[operation.label] ??
          (operation.method === 'patch' ? { name: 'Hijacked', settings: { approval_required_for: ['wallet.adjust'] } } : {});
        const foreign = await call(
          operation,
          b.auth,
          concretePath(operation.path, { id: resource.id, document_type: 'invoice', version: '1' }),
          body,
        );
        const unknown = await call(
          operation,
          b.auth,
          concretePath(operation.path, { id: randomUUID(), document_type: 'invoice', version: '1' }),
          body,
        );
        const seen = { route: operation.label, status: foreign.status, code: foreign.body?.error?.code };
        // Existence never leaks: the same refusal as for an id that does not exist at all.
        expect(seen).toEqual({ route: operation.label, status: unknown.status, code: unknown.body?.error?.code });
        expect(seen.status).toBeGreaterThanOrEqual(400);
        expect(seen.status).toBeLessThan(500);
        if (unknown.status === 404) {
          expect(seen).toEqual({
            route: operation.label,
            status: 404,
            code: resource.code ?? expect.stringMatching(/_NOT_FOUND$/),
          });
        }
        exercised.push(`${operation.label} ${seen.status}`);
      }
      expect(exercised).toEqual(
        expect.arrayContaining([
          'POST /v1/api_keys/{id}/rotate 404',
          'POST /v1/api_keys/{id}/revoke 404',
          'PATCH /v1/api_keys/{id} 404',
          'PATCH /v1/workspaces/{id} 404',
          'GET /v1/document_templates/{id} 404',
          'DELETE /v1/document_templates/{id} 404',
          'POST /v1/document_templates/{id}/copy 404',
          'POST /v1/document_templates/{id}/preview 404',
          'GET /v1/document_templates/{id}/thumbnail 404',
          'PUT /v1/document_templates/{id}/defaults/{document_type} 404',
          'GET /v1/customers/{id} 404',
          'GET /v1/customer_verifications/{id} 404',
          'GET /v1/costs/{id} 404',
          'PATCH /v1/costs/{id} 404',
          'DELETE /v1/costs/{id} 404',
          'POST /v1/costs/{id}/restore 404',
          'PATCH /v1/products/{id} 404',
          'POST /v1/products/{id}/costs 404',
          'GET /v1/products/{id}/draft 404',
          'DELETE /v1/products/{id}/draft 404',
          'POST /v1/changes/{id}/cancel 404',
          'GET /v1/cascade_runs/{id}/tasks 404',
          'GET /v1/plans/{id} 404',
          'PATCH /v1/plans/{id} 404',
          'POST /v1/plans/{id}/draft 404',
          'PATCH /v1/plans/{id}/products/{product_id} 404',
          'PATCH /v1/plans/{id}/versions/{version} 404',
          'GET /v1/plans/{id}/publish_impact 404',
          'GET /v1/plans/{id}/publish_check 404',
          'GET /v1/plans/{id}/versions/{version}/supersede_forecast 404',
          'GET /v1/plans/{id}/versions/{version}/usage 404',
          'GET /v1/subscriptions/{id} 404',
          'POST /v1/subscriptions/{id}/cancel 404',
          'GET /v1/migrations/{id}/outcomes 404',
          'POST /v1/migrations/{id}/cancel 404',
          'GET /v1/webhook_endpoints/{id} 404',
          'PATCH /v1/webhook_endpoints/{id} 404',
          'DELETE /v1/webhook_endpoints/{id} 404',
          'POST /v1/webhook_endpoints/{id}/rotate_secret 404',
          'GET /v1/webhook_endpoints/{id}/deliveries 404',
          'GET /v1/events/{id} 404',
          'POST /v1/events/{id}/redeliver 404',
        ]),
      );

      // A batch of debits names its wallets in its body: A's wallet is B's item 404, exactly as an unknown one.
      const debit = async (walletId: string) => {
        const response = await t.http
          .post('/v1/wallet_debits')
          .set('Authorization', b.auth)
          .set('Idempotency-Key', idem())
          .send({ debits: [{ wallet_id: walletId, amount: '1.00' }], atomic: true });
        return { status: response.status, code: response.body.error?.code, items: response.body.error?.details?.items };
      };
      const batch = await debit(resources.wallets.id);
      expect(batch).toEqual({
        status: 422,
        code: 'BATCH_REJECTED',
        items: [{ index: 0, status: 404, error: expect.objectContaining({ code: 'WALLET_NOT_FOUND' }) }],
      });
      expect(batch.items.map((item: any) => without(item.error, 'request_id'))).toEqual(
        (await debit(randomUUID())).items.map((item: any) => without(item.error, 'request_id')),
      );

      // Nothing changed in organization A, and B's attempts left no trace there.
      expect(await snapshot()).toEqual(before);
      await t.http.get('/v1/customers').set('Authorization', `Bearer ${keySecret}`).expect(200);
      const [{ count }] = await t.app
        .get(DataSource)
        .query('SELECT count(*)::int AS count FROM audit_events WHERE organization_id = $1 AND principal_id = $2', [
          a.organization_id,
          b.api_key.id,
        ]);
      expect(count).toBe(0);
    });

    describe('ids in request bodies and in stored settings', () => {
      /** Organization B's own resources by collection: the target of its writes, and what a body may name of its own. */
      const own: Record<string, string> = {};

      beforeAll(async () => {
        const post = (path: string, auth: string, body: object) =>
          t.http.post(path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body).expect(201);
        own.workspaces = b.liveWorkspaceId;
        own.api_keys = b.api_key.id;
        own.customers = (await post('/v1/customers', b.auth, { name: 'B customer', currency: 'EUR' })).body.id;
        if (operations.some((operation) => operation.label === 'GET /v1/wallets')) {
          // Primary wallets, once the outbox relay has delivered the customers' creation.
          await t.app.get(OutboxRelay).wake();
          const walletOf = async (auth: string, customer: string) =>
            (await t.http.get(`/v1/wallets?customer_id=${customer}`).set('Authorization', auth).expect(200)).body.data[0].id;
          resources.wallets ??= { id: await walletOf(a.auth, resources.customers.id) };
          own.wallets = await walletOf(b.auth, own.customers);
        }
        if (operations.some((operation) => operation.label === 'POST /v1/customers/{id}/payment_methods')) {
          const card = { token: 'pm_card_visa' };
          resources.payment_methods = {
            id: (await post(`/v1/customers/${resources.customers.id}/payment_methods`, a.auth, card)).body.id,
          };
          own.payment_methods = (await post(`/v1/customers/${own.customers}/payment_methods`, b.auth, card)).body.id;
        }
      });

      it('answers organization B on every PATCH and PUT whose body names an organization A resource exactly as for an unknown id, and stores none of them', async () => {
        const before = await snapshot();
        const exercised: string[] = [];
        for (const operation of secured().filter((candidate) => candidate.method === 'patch' || candidate.method === 'put')) {
          const schema = document.paths[operation.path][operation.method].requestBody?.content?.['application/json']?.schema;
          const target = own[operation.path.split('/')[2]];
          const path = concretePath(operation.path, target ? { id: target } : {});
          for (const field of bodyIdFields(document, schema).filter(
            (candidate) => !NOT_REFERENCES.includes(candidate.split('.').pop()!),
          )) {
            const name = field
              .split('.')
              .pop()!
              .replace(/_ids?$/, '');
            const kind = Object.keys(resources).find((collection) => name.endsWith(collection.replace(/s$/, '')));
            // A body id this walk cannot resolve to a resource of both organizations: teach it the resource.
            expect({ route: operation.label, field, kind: kind && own[kind] && kind }).toEqual({
              route: operation.label,
              field,
              kind: expect.any(String),
            });
            const value = (id: string) => (field.endsWith('_ids') ? [id] : id);
            const foreign = await call(operation, b.auth, path, withField({}, field, value(resources[kind!].id)));
            const unknown = await call(operation, b.auth, path, withField({}, field, value(randomUUID())));
            const seen = { route: operation.label, field, status: foreign.status, code: foreign.body?.error?.code };
            expect(seen).toEqual({ route: operation.label, field, status: unknown.status, code: unknown.body?.error?.code });
            expect(seen).toEqual({ route: operation.label, field, status: 404, code: expect.stringMatching(/_NOT_FOUND$/) });
            // The field really is a reference the route takes: B's own resource is accepted.
            const mine = await call(operation, b.auth, path, withField({}, field, value(own[kind!])));
            const accepted = mine.status < 300 ? 'accepted' : `${mine.status} ${mine.body?.error?.code}`;
            expect({ route: operation.label, field, accepted }).toEqual({ route: operation.label, field, accepted: 'accepted' });
            exercised.push(`${operation.label} ${field} ${seen.status}`);
          }
        }
        expect(exercised).toEqual(expect.arrayContaining(['PATCH /v1/wallets/{id} auto_topup_payment_method_id 404']));
        expect(await snapshot()).toEqual(before);

        // Stored settings: nothing organization B can read names one of organization A's resources.
        const foreignIds = Object.values(resources).map(({ id }) => id);
        for (const operation of secured().filter((candidate) => candidate.method === 'get')) {
          const collection = operation.path.split('/')[2];
          if (/\{(?!id\})/.test(operation.path) || (operation.path.includes('{id}') && !own[collection])) continue;
          const response = await call(operation, b.auth, concretePath(operation.path, { id: own[collection] }));
          if (response.status !== 200) continue;
          const leaked = foreignIds.filter((id) => response.text.includes(id));
          expect({ route: operation.label, leaked }).toEqual({ route: operation.label, leaked: [] });
        }
      });
    });

    it('does not show organization A’s resources in organization B’s lists', async () => {
      const lists = await Promise.all(
        [
          '/v1/api_keys',
          '/v1/workspaces',
          '/v1/customers',
          '/v1/document_templates',
          '/v1/costs',
          '/v1/products',
          '/v1/plans',
          '/v1/subscriptions',
        ].map((path) => t.http.get(`${path}?limit=200`).set('Authorization', b.auth).expect(200)),
      );
      const ids = lists.flatMap((response) => response.body.data.map((row: { id: string }) => row.id));
      for (const { id } of Object.values(resources)) expect(ids).not.toContain(id);
    });

    it('answers 404 for a resource of another workspace of the same organization', async () => {
      const customer = resources.customers.id;
      await t.http.get(`/v1/customers/${customer}`).set('Authorization', session).expect(200);
      expectError(
        await t.http.get(`/v1/customers/${customer}`).set('Authorization', session).set('X-Workspace-Id', 'sandbox'),
        404,
        'CUSTOMER_NOT_FOUND',
      );
      expectError(
        await t.http.get(`/v1/customers/${customer}`).set('Authorization', a.auth).set('X-Workspace-Id', 'a-workspace'),
        404,
        'CUSTOMER_NOT_FOUND',
      );
    });
  });

  describe('events: every write route of the document writes the events it should, a refused one none', () => {
    /**
     * What each write route's success writes, in order, given its answer: every write operation of
     * the document must be named here or in WRITES_WITHOUT_EVENTS (a route added later fails the
     * walk until it says which). A context can only write types of the catalog (EventType), and
     * the walk checks every event it sees against EVENT_TYPES too.
     */
    const EVENTS_OF: Record<string, (response: Response) => EventType[]> = {
      'POST /v1/customers': () => ['wallet.created', 'customer.created'],
      'POST /v1/api_keys': () => ['api_key.created'],
      'POST /v1/api_keys/{id}/rotate': () => ['api_key.rotated'],
      'POST /v1/api_keys/{id}/revoke': () => ['api_key.revoked'],
      'PATCH /v1/api_keys/{id}': () => ['api_key.updated'],
      'POST /v1/test_helpers/customer_verifications': () => ['customer_verification.created'],
      'PATCH /v1/customer_verifications/{id}': () => ['customer_verification.updated'],
      'POST /v1/webhooks/verifications/{provider}': () => ['customer_verification.updated'],
      'POST /v1/approvals/{id}/approve': () => ['wallet.transaction.created', 'approval_request.approved'],
      'POST /v1/approvals/{id}/reject': () => ['approval_request.rejected'],
      'POST /v1/wallets': () => ['wallet.created'],
      'PATCH /v1/wallets/{id}': () => ['wallet.updated'],
      'POST /v1/wallets/{id}/make_primary': () => ['wallet.updated'],
      'POST /v1/wallets/{id}/credit': () => ['wallet.transaction.created'],
      'POST /v1/wallets/{id}/debit': () => ['wallet.transaction.created'],
      // One ledger line per applied item, in request order; a refused item writes nothing.
      'POST /v1/wallet_debits': (response) =>
        response.body.data
          .filter((item: { status: number }) => item.status === 200)
          .map((): EventType => 'wallet.transaction.created'),
      'POST /v1/wallets/{id}/adjust': (response) =>
        response.status === 202 ? ['approval_request.created'] : ['wallet.transaction.created'],
      'POST /v1/wallets/{id}/holds': () => ['wallet.hold.created'],
      'POST /v1/wallets/{id}/holds/{hold_id}/capture': () => ['wallet.transaction.created', 'wallet.hold.captured'],
      'POST /v1/wallets/{id}/holds/{hold_id}/release': () => ['wallet.hold.released'],
      'POST /v1/wallets/{id}/transfer': () => ['wallet.transaction.created', 'wallet.transaction.created'],
      'POST /v1/wallets/{id}/top_ups': (response) =>
        response.body.mode === 'off_session'
          ? ['wallet.top_up.created', 'wallet.transaction.created', 'wallet.top_up.succeeded']
          : ['wallet.top_up.created'],
      'POST /v1/test_helpers/top_ups/{id}/succeed': () => ['wallet.transaction.created', 'wallet.top_up.succeeded'],
      'POST /v1/test_helpers/top_ups/{id}/fail': () => ['wallet.top_up.failed'],
      'POST /v1/webhooks/payments/{provider}': () => ['wallet.transaction.created', 'wallet.top_up.succeeded'],
      'POST /v1/document_templates': () => ['document_template.created'],
      'PATCH /v1/document_templates/{id}': () => ['document_template.updated'],
      'DELETE /v1/document_templates/{id}': () => ['document_template.deleted'],
      'POST /v1/document_templates/{id}/copy': () => ['document_template.created'],
      'PUT /v1/document_templates/{id}/defaults/{document_type}': () => ['document_template.default_changed'],
      'DELETE /v1/document_templates/{id}/defaults/{document_type}': () => ['document_template.default_changed'],
      'POST /v1/costs': () => ['cost.created'],
      'POST /v1/products/{id}/costs': () => ['cost.created'],
      'PATCH /v1/costs/{id}': () => ['cost.updated'],
      'DELETE /v1/costs/{id}': () => ['cost.removed'],
      'POST /v1/costs/{id}/restore': () => ['cost.restored'],
      'POST /v1/products': () => ['product.created'],
      'PATCH /v1/products/{id}': () => ['product.updated'],
      'POST /v1/plans': () => ['plan.created'],
      'PATCH /v1/plans/{id}': () => ['plan.updated'],
      'DELETE /v1/plans/{id}': () => ['plan.deleted'],
      'POST /v1/plans/{id}/copy': () => ['plan.created'],
      'POST /v1/subscriptions': () => ['subscription.created'],
      'POST /v1/subscriptions/{id}/cancel': () => ['subscription.canceled'],
      // Publish now: the version (a plan's head it supersedes first; the walk's go-lives are first versions, none
      // before them), then the change. A scheduled plan release is a version too; a product's has no type.
      'POST /v1/changes': ({ body }) => {
        if (body.status === 'pending') return body.subject_kind === 'plan' ? ['plan.version.scheduled'] : [];
        const superseded: EventType[] = body.subject_kind === 'plan' && body.result.version > 1 ? ['plan.version.archived'] : [];
        return [
          ...superseded,
          body.subject_kind === 'plan' ? 'plan.version.published' : 'product.version.published',
          'change.applied',
        ];
      },
      'POST /v1/changes/{id}/cancel': ({ body }) =>
        body.subject_kind === 'plan' ? ['plan.version.archived', 'change.canceled'] : ['change.canceled'],
      // The working draft leaves the plan's history as an archived version (a product's has no type).
      'DELETE /v1/plans/{id}/draft': () => ['plan.version.archived'],
      // Each plan republished: its head superseded, then the new version live.
      'POST /v1/plans/republish': ({ body }) =>
        body.data
          .filter((outcome: { status: string }) => outcome.status === 'republished')
          .flatMap((): EventType[] => ['plan.version.archived', 'plan.version.published']),
      // A migration with nobody to move completes in the request; the moves themselves are the run job's.
      'POST /v1/plans/{id}/migrate': ({ body }) =>
        body.mode === 'IMMEDIATE' && body.affected_subscriptions === 0 ? ['plan_migration.completed'] : [],
    };
    /**
     * Events of background work (cascade tasks, release and migration jobs): no request names them.
     * The walk's cost change starts a cascade run, which republishes the product (and the plans that
     * follow it) and completes.
     */
    const BACKGROUND: EventType[] = [
      'product.version.published',
      'plan.version.published',
      'plan.version.archived',
      'cascade_run.completed',
      'plan_migration.completed',
      'subscription.version_changed',
    ];
    /** Writes whose changes the contract's catalog has no type for (administration, sessions, settings). */
    const WRITES_WITHOUT_EVENTS = [
      'POST /v1/workspaces',
      'PATCH /v1/workspaces/{id}',
      'POST /v1/users',
      'POST /v1/sessions',
      'DELETE /v1/sessions/current',
      'PUT /v1/fx_rates/{from}/{to}',
      'POST /v1/customers/{id}/payment_methods',
      // Endpoint administration: the catalog's only endpoint event is webhook_endpoint.disabled, written when
      // the dispatcher disables a failing endpoint (a background change), not by these routes.
      'POST /v1/webhook_endpoints',
      'PATCH /v1/webhook_endpoints/{id}',
      'DELETE /v1/webhook_endpoints/{id}',
      'POST /v1/webhook_endpoints/{id}/rotate_secret',
      // A delivery of an event already written: nothing of the workspace changes.
      'POST /v1/events/{id}/redeliver',
      // Drafting: a working copy that nothing bills; what reaches billing has its events (a version published
      // or scheduled). PATCH /v1/products/{id} writes product.updated for its fields, a staged formula included.
      'POST /v1/products/{id}/draft',
      'DELETE /v1/products/{id}/draft',
      'POST /v1/plans/{id}/draft',
      'POST /v1/plans/{id}/products',
      'DELETE /v1/plans/{id}/products/{product_id}',
      'PATCH /v1/plans/{id}/products/{product_id}',
      // A version's release name and note: no type in the catalog.
      'PATCH /v1/plans/{id}/versions/{version}',
      // A migration canceled before it started: no type in the catalog (plan_migration.completed is its end).
      'POST /v1/migrations/{id}/cancel',
    ];
    /** Driven by their own suites (a provider's signature); the sandbox test helpers run the same code. */
    const NOT_DRIVEN_HERE = ['POST /v1/webhooks/verifications/{provider}', 'POST /v1/webhooks/payments/{provider}'];

    interface Exchange {
      label: string;
      response: Response;
      /** The body as answered (a flow may change the object it was handed afterwards). */
      body: any;
    }
    let e: TestTenant;
    /** The walk's cascade run (a cost's new value), which completes in the background. */
    let walkRun: string;
    const exchanges: Exchange[] = [];
    let recording: TestApp;

    function writes(): DocumentedOperation[] {
      return operations.filter((operation) => operation.method !== 'get' && !operation.pure && operation.path.startsWith('/v1/'));
    }

    /** The documented operation a concrete request answered to. */
    function labelOf(method: string, url: string): string | undefined {
      const path = new URL(url, 'http://x').pathname;
      return writes().find(
        (operation) =>
          operation.method === method.toLowerCase() && new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
      )?.label;
    }

    /** The same app, every write it answers recorded with its Request-Id (which its events name). */
    function recorder(): TestApp {
      const http = new Proxy(t.http, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if (typeof property !== 'string' || !['post', 'put', 'patch', 'delete'].includes(property)) return value;
          return (url: string) => {
            const pending = (value as (url: string) => any).call(target, url);
            pending.on('response', (response: Response) => {
              const label = labelOf(property, url);
              if (label) exchanges.push({ label, response, body: structuredClone(response.body) });
            });
            return pending;
          };
        },
      });
      return { ...t, http };
    }

    /** Every event of the tenant's live and sandbox workspaces. */
    async function tenantEvents(): Promise<any[]> {
      const all: any[] = [];
      for (const auth of [e.auth, e.sandboxAuth]) {
        let cursor: string | null = null;
        do {
          const page: Response = await t.http
            .get(`/v1/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
            .set('Authorization', auth)
            .expect(200);
          all.push(...page.body.data);
          cursor = page.body.pagination.cursor;
        } while (cursor);
      }
      return all;
    }

    beforeAll(async () => {
      e = await createTenant(t, { withOwner: true });
      recording = recorder();
      const http = recording.http;
      const send = (method: 'post' | 'patch' | 'put' | 'delete', path: string, body: object = {}, auth = e.auth) =>
        http[method](path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body);
      /** A write that must succeed (any 2xx, or exactly `status`): answers its body. */
      const ok = async (pending: Promise<Response>, status?: number) => {
        const response = await pending;
        const at = `${(response as any).req?.method} ${(response as any).req?.path}`;
        const success = status === undefined ? response.status >= 200 && response.status < 300 : response.status === status;
        expect({ at, success, body: response.body }).toEqual({ at, success: true, body: expect.anything() });
        return response.body;
      };

      // Identity and money, live.
      const customer = await ok(send('post', '/v1/customers', { name: 'Events walk', currency: 'EUR' }), 201);
      const walletId = customer.primary_wallet_id;
      const second = await ok(send('post', '/v1/wallets', { customer_id: customer.id, currency: 'USD' }), 201);
      await ok(send('patch', `/v1/wallets/${second.id}`, { max_single_credit: '500.00' }));
      await ok(send('post', `/v1/wallets/${second.id}/make_primary`));
      await ok(send('post', `/v1/wallets/${walletId}/credit`, { amount: '100.00' }));
      await ok(send('post', `/v1/wallets/${walletId}/debit`, { amount: '1.00' }));
      await ok(send('post', `/v1/wallets/${walletId}/adjust`, { amount: '2.00' }));
      const hold = await ok(send('post', `/v1/wallets/${walletId}/holds`, { amount: '3.00' }), 201);
      await ok(send('post', `/v1/wallets/${walletId}/holds/${hold.id}/capture`));
      const released = await ok(send('post', `/v1/wallets/${walletId}/holds`, { amount: '1.00' }), 201);
      await ok(send('post', `/v1/wallets/${walletId}/holds/${released.id}/release`));
      const other = await ok(send('post', '/v1/customers', { name: 'Events walk target', currency: 'EUR' }), 201);
      await ok(
        send('post', `/v1/wallets/${walletId}/transfer`, {
          amount: { value: '4.00', currency: 'EUR' },
          target_wallet_id: other.primary_wallet_id,
        }),
      );
      // A batch: two items applied, one refused (an unknown wallet), answered 200 item by item.
      const batch = await ok(
        send('post', '/v1/wallet_debits', {
          debits: [
            { wallet_id: walletId, amount: '1.00', reference: 'walk-1' },
            { wallet_id: randomUUID(), amount: '1.00', reference: 'walk-2' },
            { wallet_id: walletId, amount: '2.00', reference: 'walk-3' },
          ],
        }),
        200,
      );
      expect(batch.data.map((item: { status: number }) => item.status)).toEqual([200, 404, 200]);
      const key = await ok(send('post', '/v1/api_keys', { name: 'Events walk', scopes: ['wallets:read'] }), 201);
      await ok(send('patch', `/v1/api_keys/${key.id}`, { name: 'Events walk, renamed' }));
      await ok(send('post', `/v1/api_keys/${key.id}/rotate`), 201);
      await ok(send('post', `/v1/api_keys/${key.id}/revoke`));

      // Approvals: held by one human, decided by another.
      const owner = await signIn(t, e.owner!.email, e.owner!.password);
      await ok(
        send(
          'post',
          '/v1/users',
          { email: `approver-${e.organization_id}@example.com`, password: 'approver password 1', role: 'admin' },
          owner,
        ),
        201,
      );
      const approver = await signIn(t, `approver-${e.organization_id}@example.com`, 'approver password 1');
      await ok(send('patch', `/v1/workspaces/${e.liveWorkspaceId}`, { settings: { approval_required_for: ['wallet.adjust'] } }));
      const approved = await ok(send('post', `/v1/wallets/${walletId}/adjust`, { amount: '1.00' }, owner), 202);
      await ok(send('post', `/v1/approvals/${approved.approval.id}/approve`, {}, approver));
      const rejected = await ok(send('post', `/v1/wallets/${walletId}/adjust`, { amount: '1.00' }, owner), 202);
      await ok(send('post', `/v1/approvals/${rejected.approval.id}/reject`, {}, approver));

      // Documents.
      const template = await ok(send('post', '/v1/document_templates', { name: 'Events walk layout' }), 201);
      await ok(send('patch', `/v1/document_templates/${template.id}`, { expected_version: template.version, name: 'Renamed' }));
      await ok(send('put', `/v1/document_templates/${template.id}/defaults/invoice`));
      await ok(send('delete', `/v1/document_templates/${template.id}/defaults/invoice`));
      const copy = await ok(send('post', `/v1/document_templates/${template.id}/copy`, { name: 'Copied layout' }), 201);
      await ok(send('delete', `/v1/document_templates/${copy.id}`), 204);

      // Sandbox: top-ups settled by the test helpers, verifications.
      const sandboxCustomer = await ok(
        send('post', '/v1/customers', { name: 'Sandbox walk', currency: 'EUR' }, e.sandboxAuth),
        201,
      );
      const sandboxWallet = sandboxCustomer.primary_wallet_id;
      const method = await ok(
        send('post', `/v1/customers/${sandboxCustomer.id}/payment_methods`, { token: 'pm_card_visa' }, e.sandboxAuth),
        201,
      );
      await ok(
        send(
          'post',
          `/v1/wallets/${sandboxWallet}/top_ups`,
          { mode: 'off_session', amount: '5.00', payment_method_id: method.id },
          e.sandboxAuth,
        ),
        201,
      );
      for (const verb of ['succeed', 'fail']) {
        const topUp = await ok(
          send('post', `/v1/wallets/${sandboxWallet}/top_ups`, { mode: 'hosted_checkout', amount: '5.00' }, e.sandboxAuth),
          201,
        );
        await ok(send('post', `/v1/test_helpers/top_ups/${topUp.id}/${verb}`, {}, e.sandboxAuth));
      }
      const verification = await ok(
        send(
          'post',
          '/v1/test_helpers/customer_verifications',
          { customer_id: sandboxCustomer.id, verification_type: 'kyc' },
          e.sandboxAuth,
        ),
        201,
      );
      await ok(send('patch', `/v1/customer_verifications/${verification.id}`, { status: 'manual' }, e.sandboxAuth));

      // The catalog, through the route table's own catalog (costs, products, changes, plans, subscriptions).
      const catalog = await catalogResources(recording, e.auth);
      walkRun = catalog.cascade_runs;
      // The product's scheduled release canceled; a plan release scheduled, then canceled; a plan draft discarded.
      await ok(send('post', `/v1/changes/${catalog.changes}/cancel`));
      const planDraft = await ok(send('post', `/v1/plans/${catalog.plans}/draft`));
      await ok(send('patch', `/v1/plans/${catalog.plans}/products/${catalog.products}`, { max_quantity: 2 }));
      const release = await ok(
        send('post', '/v1/changes', {
          operation: 'catalog.publish_version',
          subject_kind: 'plan',
          subject_id: catalog.plans,
          staged_version_id: planDraft.id,
          scheduled_for: '2099-01-01T00:00:00Z',
        }),
        201,
      );
      await ok(send('post', `/v1/changes/${release.id}/cancel`));
      await ok(send('post', `/v1/plans/${catalog.plans}/draft`));
      await ok(send('delete', `/v1/plans/${catalog.plans}/draft`), 204);
      await ok(send('post', '/v1/plans/republish', { plan_ids: [catalog.plans] }), 200);
      await ok(send('post', `/v1/products/${catalog.products}/costs`, { key: 'walk_product_fee', amount: '1.00' }));
      const removable = await ok(send('post', '/v1/costs', { key: 'walk_removable', amount: '1.00' }));
      await ok(send('delete', `/v1/costs/${removable.id}`));
      await ok(send('post', `/v1/costs/${removable.id}/restore`));
      const plan = await ok(send('post', '/v1/plans', { name: 'Events walk plan' }));
      await ok(send('patch', `/v1/plans/${plan.id}`, { name: 'Events walk plan, renamed' }));
      const copied = await ok(send('post', `/v1/plans/${plan.id}/copy`, { name: 'Events walk copy' }));
      await ok(send('delete', `/v1/plans/${copied.id}`));
      await ok(send('post', `/v1/subscriptions/${catalog.subscriptions}/cancel`));

      // Webhook endpoints, and an event sent again to one (last: no delivery of the walk's other events is queued).
      const endpoint = await ok(
        send('post', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/walk-hook', enabled_events: ['customer.*'] }),
        201,
      );
      await ok(send('patch', `/v1/webhook_endpoints/${endpoint.id}`, { description: 'Events walk hook' }));
      await ok(send('post', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`));
      await ok(send('post', `/v1/events/${(await tenantEvents())[0].id}/redeliver`, { endpoint_id: endpoint.id }), 202);
      await ok(send('delete', `/v1/webhook_endpoints/${endpoint.id}`), 204);

      // Refusals: every write route once more, on ids nobody has, with an empty body.
      for (const operation of writes()) {
        await call(operation, e.auth).on('response', (response: Response) =>
          exchanges.push({ label: operation.label, response, body: structuredClone(response.body) }),
        );
      }
    });

    it('names every write route of the document: with the events it writes, or why it writes none', () => {
      const classified = new Set([...Object.keys(EVENTS_OF), ...WRITES_WITHOUT_EVENTS]);
      expect(
        writes()
          .map((operation) => operation.label)
          .filter((label) => !classified.has(label)),
      ).toEqual([]);
      expect([...classified].filter((label) => !writes().some((operation) => operation.label === label))).toEqual([]);
    });

    it('writes exactly the events of each successful write, in order, naming its request; none for a refusal', async () => {
      const events = await tenantEvents();
      const byRequest = new Map<string, any[]>();
      for (const event of events) {
        expect(EVENT_TYPES).toContain(event.type);
        const id = event.request?.id;
        if (id) byRequest.set(id, [...(byRequest.get(id) ?? []), event]);
      }
      const succeeded = new Set<string>();
      let refused = 0;
      for (const { label, response } of exchanges) {
        const written = (byRequest.get(response.headers['request-id']) ?? []).sort((x, y) => x.sequence - y.sequence);
        const replayed = response.headers['idempotent-replayed'] === 'true';
        const expected = response.status < 300 && !replayed ? (EVENTS_OF[label]?.(response) ?? []) : [];
        expect({ route: label, status: response.status, events: written.map((event) => event.type) }).toEqual({
          route: label,
          status: response.status,
          events: expected,
        });
        if (response.status < 300) succeeded.add(label);
        else refused += 1;
      }
      // Every route that writes events was seen succeeding, and the refusals were many.
      expect(Object.keys(EVENTS_OF).filter((label) => !succeeded.has(label) && !NOT_DRIVEN_HERE.includes(label))).toEqual([]);
      expect(refused).toBeGreaterThanOrEqual(writes().length / 2);
      // And no event is orphaned: each names a request this walk made, or is background work's.
      const requests = new Set(exchanges.map(({ response }) => response.headers['request-id']));
      expect(
        events.filter((event) => event.request !== null && !requests.has(event.request.id)).map((event) => event.type),
      ).toEqual([]);
      const background = events.filter((event) => event.request === null);
      expect(background.map((event) => event.type).filter((type) => !BACKGROUND.includes(type))).toEqual([]);
    });

    it('writes every event as the OpenAPI document’s webhooks describe it (data.object fits its type’s schema)', async () => {
      const events = await tenantEvents();
      expect(new Set(events.map((event) => event.type)).size).toBeGreaterThanOrEqual(35);
      for (const event of events) {
        expect({ type: event.type, misfit: objectMisfit(document, event) }).toEqual({
          type: event.type,
          misfit: { undeclared: [], missing: [] },
        });
      }
    });

    it('writes the events of background work: the cascade run republished the product, then completed once', async () => {
      const events = (await tenantEvents()).filter((event) => event.request === null);
      const run = (await t.http.get(`/v1/cascade_runs/${walkRun}`).set('Authorization', e.auth).expect(200)).body;
      const completed = events.filter((event) => event.type === 'cascade_run.completed' && event.data.object.id === walkRun);
      expect(completed.map((event) => event.data.object)).toEqual([run]);
      expect(run.status).toBe('completed');
      const republished = events.filter(
        (event) => event.type === 'product.version.published' && event.data.object.cascade_source?.entity_type === 'cost',
      );
      expect(republished.map((event) => event.data.object.origin)).toEqual(['cascade']);
      // Written with the change it tells of: before the run's completion, in the workspace's order.
      expect(republished[0].sequence).toBeLessThan(completed[0].sequence);
    });

    it('gives each event the object its write answered (the same response mapper as the resource’s GET)', async () => {
      const events = await tenantEvents();
      let compared = 0;
      for (const { label, response, body } of exchanges) {
        if (response.status >= 300 || typeof body?.id !== 'string') continue;
        // A cancel's answer adds the versions based on the canceled release to the change its GET answers.
        const answered = without(body, 'secret', ...(label === 'POST /v1/changes/{id}/cancel' ? ['dependents'] : []));
        // The request's last event on the resource it answered: what its GET answered as the request ended.
        const last = events
          .filter((event) => event.request?.id === response.headers['request-id'])
          .filter((event) => event.data.object.id === answered.id && event.data.object.object === answered.object)
          .sort((x, y) => y.sequence - x.sequence)[0];
        if (!last) continue;
        const at = `${label} → ${last.type}`;
        expect({ [at]: last.data.object }).toEqual({ [at]: answered });
        compared += 1;
      }
      expect(compared).toBeGreaterThanOrEqual(15);
    });
  });
});
