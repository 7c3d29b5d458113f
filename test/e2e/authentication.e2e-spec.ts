import { randomUUID } from 'node:crypto';
import { ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { createScopelessKey, expectError, forgeToken, postCustomer, typo } from '../support/auth-helpers';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

// The e2e project's testTimeout is not a per-project option in Jest: set it here.
jest.setTimeout(30_000);

const HOUR = 60 * 60 * 1000;

/** Resources of the contract (section 1); each has a read and a write scope. */
const CONTRACT_RESOURCES = [
  'costs',
  'products',
  'plans',
  'changes',
  'document_templates',
  'customers',
  'customer_verifications',
  'api_keys',
  'wallets',
  'approvals',
  'workspaces',
  'users',
  'fx_rates',
];

function bearer(secret: string): string {
  return `Bearer ${secret}`;
}

describe('Authentication: credentials, addresses, workspaces and scopes', () => {
  let t: TestApp;
  let clock: ManualClock;
  let org: TestTenant;
  let other: TestTenant;
  let session: string;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await createTestApp({ clock });
    org = await createTenant(t, { withOwner: true });
    other = await createTenant(t);
    session = await signIn(t, org.owner!.email, org.owner!.password);
  });
  afterAll(() => t.close());

  /** A request that needs only `customers:read`: 200 when every check passes. */
  function listCustomers(auth: string | undefined, headers: Record<string, string> = {}) {
    const request = t.http.get('/v1/customers').set(headers);
    return auth === undefined ? request : request.set('Authorization', auth);
  }

  describe('bearer tokens', () => {
    it('refuses a request without Authorization with 401 UNAUTHENTICATED and WWW-Authenticate: Bearer', async () => {
      expectError(await listCustomers(undefined), 401, 'UNAUTHENTICATED');
      expectError(await t.http.get('/v1/permissions'), 401, 'UNAUTHENTICATED');
      // 401 comes before the Idempotency-Key check and before body validation.
      expectError(await t.http.post('/v1/api_keys').send({ bogus: true }), 401, 'UNAUTHENTICATED');
    });

    it.each([
      ['Bearer', 'the scheme without a token'],
      ['Bearer ', 'the scheme and a space'],
      ['Basic dXNlcjpwYXNzd29yZA==', 'Basic credentials'],
      ['Token abc', 'an unknown scheme'],
      ['sk_live_abc', 'a bare token without the scheme'],
      ['Bearer abc', 'a token of no known kind'],
      ['Bearer sk_live_', 'only a prefix'],
      ['Bearer pk_live_0123456789012345678901234567890123456789012345678', 'an unknown prefix'],
    ])('refuses %j (%s) with 401 UNAUTHENTICATED', async (authorization) => {
      const response = await listCustomers(authorization);
      const error = expectError(response, 401, 'UNAUTHENTICATED');
      expect(JSON.stringify(error)).not.toContain(org.rootKey);
    });

    it('refuses a valid secret inside a malformed header (Basic scheme, extra words, double space)', async () => {
      expectError(await listCustomers(`Basic ${org.rootKey}`), 401, 'UNAUTHENTICATED');
      expectError(await listCustomers(`Bearer ${org.rootKey} extra`), 401, 'UNAUTHENTICATED');
      expectError(await listCustomers(`Bearer  ${org.rootKey}`), 401, 'UNAUTHENTICATED');
      expectError(await listCustomers(`Bearer ${org.rootKey}${org.rootKey}`), 401, 'UNAUTHENTICATED');
      // The untouched secret passes: the refusals above are about the header alone.
      await listCustomers(org.auth).expect(200);
    });

    it('refuses a typo or a truncated secret with 401 UNAUTHENTICATED without reading the database', async () => {
      const dataSource = t.app.get(DataSource);
      const spy = jest.spyOn(dataSource, 'query');
      try {
        const candidates = [
          typo(org.rootKey),
          typo(org.rootKey, org.rootKey.length - 1),
          org.rootKey.slice(0, -1),
          org.rootKey.slice(0, 20),
          `${org.rootKey}x`,
          org.rootKey.toUpperCase(),
          typo(session.slice('Bearer '.length)),
        ];
        for (const candidate of candidates) {
          expectError(await listCustomers(bearer(candidate)), 401, 'UNAUTHENTICATED');
        }
        const lookups = spy.mock.calls.filter(([sql]) => /secret_hash|token_hash/.test(String(sql)));
        expect(lookups).toEqual([]);
      } finally {
        spy.mockRestore();
      }
    });

    it('refuses a well-formed but never-issued API key or session token with 401 UNAUTHENTICATED', async () => {
      for (const kind of ['sk_live', 'sk_test', 'sess'] as const) {
        expectError(await listCustomers(bearer(forgeToken(kind))), 401, 'UNAUTHENTICATED');
      }
    });

    it('accepts the root key, a session and a minted key on the same route', async () => {
      await listCustomers(org.auth).expect(200);
      await listCustomers(session).expect(200);
      const key = await createKey(t, org.auth, { name: 'reader', scopes: ['customers:read'] });
      await listCustomers(bearer(key.secret)).expect(200);
    });

    it('refuses a signed-out session with 401 UNAUTHENTICATED', async () => {
      const own = await signIn(t, org.owner!.email, org.owner!.password);
      await listCustomers(own).expect(200);
      await t.http.delete('/v1/sessions/current').set('Authorization', own).expect(204);
      expectError(await listCustomers(own), 401, 'UNAUTHENTICATED');
      await listCustomers(session).expect(200);
    });

    it('refuses a revoked key with 401 API_KEY_REVOKED, before any address or workspace check', async () => {
      const key = await createKey(t, org.auth, { name: 'to revoke', scopes: ['customers:read'], allowed_ips: ['10.0.0.0/8'] });
      const unrestricted = await createKey(t, org.auth, { name: 'to revoke 2', scopes: ['customers:read'] });
      await listCustomers(bearer(unrestricted.secret)).expect(200);
      for (const id of [key.id, unrestricted.id]) {
        await t.http.post(`/v1/api_keys/${id}/revoke`).set('Authorization', org.auth).set('Idempotency-Key', idem()).expect(200);
      }
      expectError(await listCustomers(bearer(unrestricted.secret)), 401, 'API_KEY_REVOKED');
      // Its address would be refused (403) and its workspaces unknown (404): 401 wins.
      expectError(await listCustomers(bearer(key.secret)), 401, 'API_KEY_REVOKED');
      expectError(await listCustomers(bearer(unrestricted.secret), { 'X-Workspace-Id': randomUUID() }), 401, 'API_KEY_REVOKED');
      expectError(await listCustomers(bearer(unrestricted.secret), { 'X-Workspace-Id': 'nowhere' }), 401, 'API_KEY_REVOKED');
      expectError(
        await listCustomers(bearer(unrestricted.secret), { 'X-Workspace-Id': other.liveWorkspaceId }),
        401,
        'API_KEY_REVOKED',
      );
    });

    it('refuses a key past its expires_at with 401 API_KEY_EXPIRED (injected clock)', async () => {
      const expiresAt = new Date(clock.now().getTime() + HOUR);
      const key = await createKey(t, org.auth, { name: 'short-lived', scopes: ['customers:read'], expires_at: expiresAt });
      expect(key.body.expires_at).toBe(expiresAt.toISOString());
      await listCustomers(bearer(key.secret)).expect(200);
      clock.advance(HOUR - 1000);
      await listCustomers(bearer(key.secret)).expect(200);
      clock.advance(1000);
      expectError(await listCustomers(bearer(key.secret)), 401, 'API_KEY_EXPIRED');
      // 401 before the workspace check.
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': 'nowhere' }), 401, 'API_KEY_EXPIRED');
      const listed = await t.http.get('/v1/api_keys').set('Authorization', org.auth).expect(200);
      expect(listed.body.data.find((row: { id: string }) => row.id === key.id)).toEqual(
        expect.objectContaining({ status: 'expired', revoked_at: null }),
      );
    });
  });

  describe('IP allowlist (callers come from 127.0.0.1)', () => {
    it.each([[['127.0.0.0/8']], [['127.0.0.1']], [['10.0.0.0/8', '127.0.0.1/32']], [['::ffff:127.0.0.1']], [[]]])(
      'lets a key with allowed_ips %j through',
      async (allowedIps) => {
        const key = await createKey(t, org.auth, { name: 'allowed', scopes: ['customers:read'], allowed_ips: allowedIps });
        await listCustomers(bearer(key.secret)).expect(200);
      },
    );

    it.each([[['10.0.0.0/8']], [['203.0.113.5']], [['128.0.0.0/1']], [['::1']], [['2001:db8::/32']]])(
      'refuses a key with allowed_ips %j with 403 IP_NOT_ALLOWED',
      async (allowedIps) => {
        const key = await createKey(t, org.auth, { name: 'fenced', scopes: ['customers:read'], allowed_ips: allowedIps });
        const error = expectError(await listCustomers(bearer(key.secret)), 403, 'IP_NOT_ALLOWED');
        expect(error.details).toEqual({ ip: expect.stringMatching(/127\.0\.0\.1$/) });
      },
    );

    it('checks the address before the workspace and before the scope', async () => {
      const key = await createKey(t, org.auth, { name: 'fenced', scopes: ['customers:read'], allowed_ips: ['10.0.0.0/8'] });
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': randomUUID() }), 403, 'IP_NOT_ALLOWED');
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': 'nowhere' }), 403, 'IP_NOT_ALLOWED');
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': other.liveWorkspaceId }), 403, 'IP_NOT_ALLOWED');
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': 'sandbox' }), 403, 'IP_NOT_ALLOWED');
      expectError(await t.http.get('/v1/api_keys').set('Authorization', bearer(key.secret)), 403, 'IP_NOT_ALLOWED');
    });

    it('ignores X-Forwarded-For when TRUST_PROXY is not set', async () => {
      const remote = await createKey(t, org.auth, { name: 'remote', scopes: ['customers:read'], allowed_ips: ['203.0.113.5'] });
      expectError(await listCustomers(bearer(remote.secret), { 'X-Forwarded-For': '203.0.113.5' }), 403, 'IP_NOT_ALLOWED');
      const local = await createKey(t, org.auth, { name: 'local', scopes: ['customers:read'], allowed_ips: ['127.0.0.0/8'] });
      await listCustomers(bearer(local.secret), { 'X-Forwarded-For': '203.0.113.5' }).expect(200);
    });
  });

  describe('workspaces', () => {
    it('selects the live workspace by default for sk_live keys and sessions, the sandbox one for sk_test keys', async () => {
      const live = await postCustomer(t, org.auth).expect(201);
      expect(live.body.workspace_id).toBe(org.liveWorkspaceId);
      const bySession = await postCustomer(t, session).expect(201);
      expect(bySession.body.workspace_id).toBe(org.liveWorkspaceId);
      const testKey = await createKey(t, session, { name: 'test', scopes: ['customers:write'] }, { 'X-Workspace-Id': 'sandbox' });
      expect(testKey.body.key_type).toBe('sk_test');
      expect(testKey.secret).toMatch(/^sk_test_/);
      const sandbox = await postCustomer(t, bearer(testKey.secret)).expect(201);
      expect(sandbox.body.workspace_id).toBe(org.sandboxWorkspaceId);
    });

    it('gives the sandbox from the first minute: the sandbox root key reaches it, never live', async () => {
      const sandbox = await postCustomer(t, org.sandboxAuth).expect(201);
      expect(sandbox.body.workspace_id).toBe(org.sandboxWorkspaceId);
      const error = expectError(
        await listCustomers(org.sandboxAuth, { 'X-Workspace-Id': 'live' }),
        403,
        'WORKSPACE_MODE_MISMATCH',
      );
      expect(error.details).toEqual({ key_type: 'sk_test', workspace_mode: 'live' });
      // The live root key reaches the sandbox through a sk_test key it mints.
      const testKey = await createKey(t, org.auth, { name: 'test', scopes: ['customers:write'], key_type: 'sk_test' });
      const minted = await postCustomer(t, bearer(testKey.secret)).expect(201);
      expect(minted.body.workspace_id).toBe(org.sandboxWorkspaceId);
    });

    it('resolves X-Workspace-Id by UUID and by slug', async () => {
      const testKey = await createKey(t, session, { name: 'test', scopes: ['customers:write'], key_type: 'sk_test' });
      for (const reference of [org.sandboxWorkspaceId, 'sandbox']) {
        const response = await postCustomer(t, bearer(testKey.secret), { 'X-Workspace-Id': reference }).expect(201);
        expect(response.body.workspace_id).toBe(org.sandboxWorkspaceId);
      }
      for (const reference of [org.liveWorkspaceId, 'live']) {
        const response = await postCustomer(t, org.auth, { 'X-Workspace-Id': reference }).expect(201);
        expect(response.body.workspace_id).toBe(org.liveWorkspaceId);
      }
    });

    it('resolves a workspace UUID written in upper case (UUIDs are case-insensitive)', async () => {
      const response = await postCustomer(t, org.auth, { 'X-Workspace-Id': org.liveWorkspaceId.toUpperCase() }).expect(201);
      expect(response.body.workspace_id).toBe(org.liveWorkspaceId);
    });

    it('lets a session use both modes', async () => {
      const response = await postCustomer(t, session, { 'X-Workspace-Id': 'sandbox' }).expect(201);
      expect(response.body.workspace_id).toBe(org.sandboxWorkspaceId);
    });

    it('answers an unknown workspace with 404 WORKSPACE_NOT_FOUND', async () => {
      for (const reference of [randomUUID(), 'nowhere', 'LIVE']) {
        const error = expectError(await listCustomers(org.auth, { 'X-Workspace-Id': reference }), 404, 'WORKSPACE_NOT_FOUND');
        expect(error.param).toBe('X-Workspace-Id');
      }
    });

    it("answers another organization's workspace UUID with 403 WORKSPACE_FORBIDDEN, and its slugs as unknown", async () => {
      for (const id of [other.liveWorkspaceId, other.sandboxWorkspaceId]) {
        expectError(await listCustomers(org.auth, { 'X-Workspace-Id': id }), 403, 'WORKSPACE_FORBIDDEN');
      }
      const created = await t.http
        .post('/v1/workspaces')
        .set('Authorization', other.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'Theirs', slug: 'only-theirs', mode: 'live' })
        .expect(201);
      expectError(await listCustomers(org.auth, { 'X-Workspace-Id': 'only-theirs' }), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await listCustomers(org.auth, { 'X-Workspace-Id': created.body.id }), 403, 'WORKSPACE_FORBIDDEN');
      // A slug both organizations have resolves to the caller's own workspace.
      const own = await postCustomer(t, org.auth, { 'X-Workspace-Id': 'live' }).expect(201);
      expect(own.body.workspace_id).toBe(org.liveWorkspaceId);
    });

    it('refuses a key on a workspace of the other mode with 403 WORKSPACE_MODE_MISMATCH', async () => {
      for (const reference of ['sandbox', org.sandboxWorkspaceId]) {
        const error = expectError(await listCustomers(org.auth, { 'X-Workspace-Id': reference }), 403, 'WORKSPACE_MODE_MISMATCH');
        expect(error.details).toEqual({ key_type: 'sk_live', workspace_mode: 'sandbox' });
      }
      const testKey = await createKey(t, session, { name: 'test', scopes: ['customers:read'], key_type: 'sk_test' });
      for (const reference of ['live', org.liveWorkspaceId]) {
        const error = expectError(
          await listCustomers(bearer(testKey.secret), { 'X-Workspace-Id': reference }),
          403,
          'WORKSPACE_MODE_MISMATCH',
        );
        expect(error.details).toEqual({ key_type: 'sk_test', workspace_mode: 'live' });
      }
    });

    it('checks the workspace before the scope, and the scope before the resource', async () => {
      const key = await createKey(t, org.auth, { name: 'wallets only', scopes: ['wallets:read'] });
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': 'nowhere' }), 404, 'WORKSPACE_NOT_FOUND');
      expectError(
        await listCustomers(bearer(key.secret), { 'X-Workspace-Id': other.liveWorkspaceId }),
        403,
        'WORKSPACE_FORBIDDEN',
      );
      expectError(await listCustomers(bearer(key.secret), { 'X-Workspace-Id': 'sandbox' }), 403, 'WORKSPACE_MODE_MISMATCH');
      expectError(await listCustomers(bearer(key.secret)), 403, 'INSUFFICIENT_SCOPE');
      const unknown = randomUUID();
      expectError(
        await t.http.get(`/v1/customers/${unknown}`).set('Authorization', bearer(key.secret)),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expectError(await t.http.get(`/v1/customers/${unknown}`).set('Authorization', org.auth), 404, 'CUSTOMER_NOT_FOUND');
    });
  });

  describe('scopes', () => {
    it('refuses a route whose scope the key lacks with 403 INSUFFICIENT_SCOPE naming the scope', async () => {
      const key = await createKey(t, org.auth, { name: 'reader', scopes: ['customers:read'] });
      await listCustomers(bearer(key.secret)).expect(200);
      const write = expectError(await postCustomer(t, bearer(key.secret)), 403, 'INSUFFICIENT_SCOPE');
      expect(write.details).toEqual({ required_scope: 'customers:write' });
      const keys = expectError(
        await t.http.get('/v1/api_keys').set('Authorization', bearer(key.secret)),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(keys.details).toEqual({ required_scope: 'api_keys:read' });
    });

    it('limits a session to its role: a viewer reads but cannot write', async () => {
      const email = `viewer-${randomUUID()}@example.com`;
      const password = 'a viewer passphrase';
      await t.http
        .post('/v1/users')
        .set('Authorization', org.auth)
        .set('Idempotency-Key', idem())
        .send({ email, password, role: 'viewer' })
        .expect(201);
      const viewer = await signIn(t, email, password);
      await listCustomers(viewer).expect(200);
      expectError(await postCustomer(t, viewer), 403, 'INSUFFICIENT_SCOPE');
    });

    it('requires an Idempotency-Key on authenticated POSTs, after authentication and scope', async () => {
      const missing = await t.http.post('/v1/customers').set('Authorization', org.auth).send({ name: 'x', currency: 'EUR' });
      expect(expectError(missing, 400, 'IDEMPOTENCY_KEY_REQUIRED').param).toBe('Idempotency-Key');
      const reader = await createKey(t, org.auth, { name: 'reader', scopes: ['customers:read'] });
      const refused = await t.http.post('/v1/customers').set('Authorization', bearer(reader.secret)).send({});
      expectError(refused, 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('GET /v1/permissions', () => {
    it('lists the scope catalog: <resource>:read and <resource>:write with descriptions', async () => {
      const response = await t.http.get('/v1/permissions').set('Authorization', org.auth).expect(200);
      expect(response.body.object).toBe('list');
      const scopes: string[] = response.body.data.map((entry: { scope: string }) => entry.scope);
      for (const resource of CONTRACT_RESOURCES)
        expect(scopes).toEqual(expect.arrayContaining([`${resource}:read`, `${resource}:write`]));
      expect(new Set(scopes).size).toBe(scopes.length);
      for (const entry of response.body.data) {
        expect(entry).toEqual({
          scope: `${entry.resource}:${entry.access}`,
          resource: expect.stringMatching(/^[a-z_]+$/),
          access: expect.stringMatching(/^(read|write)$/),
          description: expect.any(String),
        });
        expect(entry.description.length).toBeGreaterThan(0);
        expect(scopes).toContain(`${entry.resource}:${entry.access === 'read' ? 'write' : 'read'}`);
      }
      expect(response.body.data.find((entry: { scope: string }) => entry.scope === 'wallets:write')).toEqual(
        expect.objectContaining({ resource: 'wallets', access: 'write' }),
      );
    });

    it('answers any principal holding at least one scope, whatever it is', async () => {
      const unrelated = await createKey(t, org.auth, { name: 'costs only', scopes: ['costs:read'] });
      const catalog = await t.http.get('/v1/permissions').set('Authorization', org.auth).expect(200);
      const viaKey = await t.http.get('/v1/permissions').set('Authorization', bearer(unrelated.secret)).expect(200);
      const viaSession = await t.http.get('/v1/permissions').set('Authorization', session).expect(200);
      expect(viaKey.body).toEqual(catalog.body);
      expect(viaSession.body).toEqual(catalog.body);
      const testKey = await createKey(t, session, { name: 'test', scopes: ['costs:read'], key_type: 'sk_test' });
      await t.http.get('/v1/permissions').set('Authorization', bearer(testKey.secret)).expect(200);
    });

    it('refuses a key without scopes (403 INSUFFICIENT_SCOPE) and anonymous callers (401)', async () => {
      const scopeless = await createScopelessKey(t, org);
      expectError(await t.http.get('/v1/permissions').set('Authorization', bearer(scopeless.secret)), 403, 'INSUFFICIENT_SCOPE');
      expectError(await listCustomers(bearer(scopeless.secret)), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.http.get('/v1/permissions'), 401, 'UNAUTHENTICATED');
    });
  });
});

describe.each([
  { label: 'TRUST_PROXY unset', env: {} as Record<string, string>, trusted: false },
  { label: 'TRUST_PROXY=false', env: { TRUST_PROXY: 'false' }, trusted: false },
  { label: 'TRUST_PROXY=true', env: { TRUST_PROXY: 'true' }, trusted: true },
])('Authentication: X-Forwarded-For with $label', ({ env, trusted }) => {
  let t: TestApp;
  let org: TestTenant;

  beforeAll(async () => {
    t = await createTestApp({ env });
    org = await createTenant(t);
  });
  afterAll(() => t.close());

  function call(secret: string, forwardedFor?: string) {
    const request = t.http.get('/v1/customers').set('Authorization', `Bearer ${secret}`);
    return forwardedFor === undefined ? request : request.set('X-Forwarded-For', forwardedFor);
  }

  it(`${trusted ? 'uses' : 'ignores'} X-Forwarded-For as the client address`, async () => {
    const remote = await createKey(t, org.auth, { name: 'remote', scopes: ['customers:read'], allowed_ips: ['203.0.113.0/24'] });
    const local = await createKey(t, org.auth, { name: 'local', scopes: ['customers:read'], allowed_ips: ['127.0.0.0/8'] });

    const remoteForwarded = await call(remote.secret, '203.0.113.5');
    const localForwarded = await call(local.secret, '203.0.113.5');
    if (trusted) {
      expect(remoteForwarded.status).toBe(200);
      const error = expectError(localForwarded, 403, 'IP_NOT_ALLOWED');
      expect(error.details).toEqual({ ip: '203.0.113.5' });
    } else {
      expectError(remoteForwarded, 403, 'IP_NOT_ALLOWED');
      expect(localForwarded.status).toBe(200);
    }
    // Without the header the socket address counts in every configuration.
    expectError(await call(remote.secret), 403, 'IP_NOT_ALLOWED');
    await call(local.secret).expect(200);
  });
});
