import { createHash } from 'node:crypto';
import { ManualClock } from '@app/shared-kernel';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { without } from '../support/auth-helpers';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { ISO, UUID, expectError } from '../support/expectations';

// scrypt hashing and real PostgreSQL: the default 5 s is too tight on a busy 2-core machine.
jest.setTimeout(30_000);

const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

describe('Sessions and users', () => {
  const clock = new ManualClock(new Date('2026-11-22T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let owner: { email: string; password: string; organization_id: string };
  /** Every response body seen and every password sent, to prove no password ever comes back. */
  const seen: string[] = [];
  const passwords = new Set<string>();

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    owner = { ...tenant.owner!, organization_id: tenant.organization_id };
  });
  afterAll(() => t.close());

  async function sessionCount(): Promise<{ sessions: number; audited: number }> {
    const [row] = await db.query(
      `SELECT (SELECT count(*)::int FROM sessions) AS sessions,
              (SELECT count(*)::int FROM audit_events WHERE action = 'session.created') AS audited`,
    );
    return row;
  }

  function remember(response: request.Response): request.Response {
    seen.push(response.text);
    return response;
  }

  async function createUser(auth: string, body: Record<string, unknown>, key = idem()): Promise<request.Response> {
    if (typeof body.password === 'string') passwords.add(body.password);
    return remember(await t.http.post('/v1/users').set('Authorization', auth).set('Idempotency-Key', key).send(body));
  }

  describe('POST /v1/sessions', () => {
    it('signs a user in without an Idempotency-Key: 201 with a sess_ token', async () => {
      const response = remember(await t.http.post('/v1/sessions').send(owner));
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        object: 'session',
        id: expect.stringMatching(UUID),
        token: expect.stringMatching(/^sess_[0-9A-Za-z]{49}$/),
        user_id: tenant.user_id,
        organization_id: tenant.organization_id,
        expires_at: expect.stringMatching(ISO),
      });
      expect(new Date(response.body.expires_at).getTime()).toBe(clock.now().getTime() + SESSION_LIFETIME_MS);
      // Stored as a hash only.
      const [row] = await db.query('SELECT token_hash, user_id FROM sessions WHERE id = $1', [response.body.id]);
      expect(row.user_id).toBe(tenant.user_id);
      expect(Buffer.compare(row.token_hash, createHash('sha256').update(response.body.token).digest())).toBe(0);
    });

    it('accepts the email in any case and with surrounding spaces', async () => {
      const response = await t.http
        .post('/v1/sessions')
        .send({ ...owner, email: `  ${owner.email.toUpperCase()} ` })
        .expect(201);
      expect(response.body.user_id).toBe(tenant.user_id);
    });

    it('refuses a wrong password, an unknown email and another organization alike: 401 INVALID_CREDENTIALS', async () => {
      const sessionsBefore = await sessionCount();
      const wrong = remember(await t.http.post('/v1/sessions').send({ ...owner, password: `${owner.password}!` }));
      expectError(wrong, 401, 'authentication_error', 'INVALID_CREDENTIALS');
      const unknown = remember(await t.http.post('/v1/sessions').send({ ...owner, email: 'ghost@example.com' }));
      expectError(unknown, 401, 'authentication_error', 'INVALID_CREDENTIALS');
      expect(unknown.body.error.message).toBe(wrong.body.error.message);
      const other = await createTenant(t);
      for (const organization_id of [other.organization_id, '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01']) {
        const elsewhere = await t.http.post('/v1/sessions').send({ ...owner, organization_id });
        expectError(elsewhere, 401, 'authentication_error', 'INVALID_CREDENTIALS');
        expect(elsewhere.body.error.message).toBe(wrong.body.error.message);
      }
      const empty = await t.http.post('/v1/sessions').send({ ...owner, password: '' });
      expectError(empty, 401, 'authentication_error', 'INVALID_CREDENTIALS');
      expect(await sessionCount()).toEqual(sessionsBefore);
    });

    it('refuses a malformed request with 400', async () => {
      const badEmail = await t.http.post('/v1/sessions').send({ ...owner, email: 'not-an-email' });
      expectError(badEmail, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(badEmail.body.error.errors).toEqual([expect.objectContaining({ param: 'email', code: 'INVALID_FORMAT' })]);
      const missing = await t.http.post('/v1/sessions').send({ email: owner.email, organization_id: owner.organization_id });
      expectError(missing, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(missing.body.error.errors).toEqual([expect.objectContaining({ param: 'password', code: 'INVALID_TYPE' })]);
      const extra = await t.http.post('/v1/sessions').send({ ...owner, remember_me: true });
      expectError(extra, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(extra.body.error.errors).toEqual([expect.objectContaining({ param: 'remember_me', code: 'UNKNOWN_PARAMETER' })]);
      const badOrganization = await t.http.post('/v1/sessions').send({ ...owner, organization_id: 'acme' });
      expectError(badOrganization, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(badOrganization.body.error.errors).toEqual([
        expect.objectContaining({ param: 'organization_id', code: 'INVALID_FORMAT' }),
      ]);
    });
  });

  describe('a session as a credential', () => {
    it("authenticates on the live workspace by default with the owner's scopes", async () => {
      const session = await signIn(t, owner.email, owner.password);
      const customer = await t.http
        .post('/v1/customers')
        .set('Authorization', session)
        .set('Idempotency-Key', idem())
        .send({ name: 'Made by a human', currency: 'EUR' })
        .expect(201);
      expect(customer.body.workspace_id).toBe(tenant.liveWorkspaceId);
      await t.http.get('/v1/users').set('Authorization', session).expect(200);
      await t.http.get('/v1/api_keys').set('Authorization', session).expect(200);
      // A session is not bound to a key mode: it may choose the sandbox workspace.
      const sandbox = await t.http
        .post('/v1/customers')
        .set('Authorization', session)
        .set('X-Workspace-Id', 'sandbox')
        .set('Idempotency-Key', idem())
        .send({ name: 'Sandbox human', currency: 'EUR' })
        .expect(201);
      expect(sandbox.body.workspace_id).toBe(tenant.sandboxWorkspaceId);
    });

    it('needs an Idempotency-Key on POST like any other credential', async () => {
      const session = await signIn(t, owner.email, owner.password);
      const response = await t.http.post('/v1/customers').set('Authorization', session).send({ name: 'x', currency: 'EUR' });
      expectError(response, 400, 'invalid_request_error', 'IDEMPOTENCY_KEY_REQUIRED');
    });

    it('DELETE /v1/sessions/current ends that session only: 204, then 401 UNAUTHENTICATED', async () => {
      const ending = await signIn(t, owner.email, owner.password);
      const staying = await signIn(t, owner.email, owner.password);
      await t.http.get('/v1/users').set('Authorization', ending).expect(200);

      const ended = await t.http.delete('/v1/sessions/current').set('Authorization', ending);
      expect(ended.status).toBe(204);
      expect(ended.text).toBe('');

      const refused = await t.http.get('/v1/users').set('Authorization', ending);
      expectError(refused, 401, 'authentication_error', 'UNAUTHENTICATED');
      expect(refused.headers['www-authenticate']).toBe('Bearer');
      const again = await t.http.delete('/v1/sessions/current').set('Authorization', ending);
      expectError(again, 401, 'authentication_error', 'UNAUTHENTICATED');
      await t.http.get('/v1/users').set('Authorization', staying).expect(200);

      const [row] = await db.query(
        `SELECT s.revoked_at, (SELECT count(*)::int FROM audit_events a WHERE a.organization_id = s.organization_id AND a.action = 'session.ended' AND a.resource_id = s.id::text)
                AS audited
           FROM sessions s WHERE s.token_hash = $1`,
        [createHash('sha256').update(ending.slice('Bearer '.length)).digest()],
      );
      expect(row).toEqual({ revoked_at: expect.any(Date), audited: 1 });
    });

    it('refuses the ended session on the very next request, every time (no window while the cache catches up)', async () => {
      const sessions: string[] = [];
      for (let i = 0; i < 8; i += 1) sessions.push(await signIn(t, owner.email, owner.password));
      for (const session of sessions) {
        await t.http.get('/v1/users').set('Authorization', session).expect(200);
        await t.http.delete('/v1/sessions/current').set('Authorization', session).expect(204);
        const refused = await t.http.get('/v1/users').set('Authorization', session);
        expectError(refused, 401, 'authentication_error', 'UNAUTHENTICATED');
      }
    }, 30_000);

    it('refuses DELETE /v1/sessions/current with an API key: 400 NOT_A_SESSION, the key still works', async () => {
      const response = await t.http.delete('/v1/sessions/current').set('Authorization', tenant.auth);
      expectError(response, 400, 'invalid_request_error', 'NOT_A_SESSION');
      await t.http.get('/v1/users').set('Authorization', tenant.auth).expect(200);
      const anonymous = await t.http.delete('/v1/sessions/current');
      expectError(anonymous, 401, 'authentication_error', 'UNAUTHENTICATED');
    });

    it('expires after twelve hours', async () => {
      const session = await signIn(t, owner.email, owner.password);
      await t.http.get('/v1/users').set('Authorization', session).expect(200);
      clock.advance(SESSION_LIFETIME_MS - 1000);
      await t.http.get('/v1/users').set('Authorization', session).expect(200);
      clock.advance(1000);
      try {
        const expired = await t.http.get('/v1/users').set('Authorization', session);
        expectError(expired, 401, 'authentication_error', 'UNAUTHENTICATED');
      } finally {
        clock.advance(-SESSION_LIFETIME_MS);
      }
    });

    it('refuses a tampered or unknown sess_ token with 401', async () => {
      const session = await signIn(t, owner.email, owner.password);
      const token = session.slice('Bearer '.length);
      const tampered = `${token.slice(0, 10)}${token[10] === 'a' ? 'b' : 'a'}${token.slice(11)}`;
      expectError(
        await t.http.get('/v1/users').set('Authorization', `Bearer ${tampered}`),
        401,
        'authentication_error',
        'UNAUTHENTICATED',
      );
    });
  });

  describe('POST /v1/users and GET /v1/users', () => {
    it('creates a user with a role: 201 with Location, no password anywhere, a scrypt hash at rest', async () => {
      const password = 'a long enough password #1';
      const ownerSession = await signIn(t, owner.email, owner.password);
      const response = await createUser(ownerSession, { email: 'Finance@Example.com', password, role: 'admin' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'user',
        email: 'finance@example.com',
        role: 'admin',
        created_at: expect.stringMatching(ISO),
      });
      expect(response.headers.location).toBe(`/v1/users/${response.body.id}`);
      const [row] = await db.query('SELECT organization_id, password_hash FROM users WHERE id = $1', [response.body.id]);
      expect(row.organization_id).toBe(tenant.organization_id);
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(row.password_hash).not.toContain(password);

      const session = await signIn(t, 'finance@example.com', password);
      await t.http.get('/v1/api_keys').set('Authorization', session).expect(200);
    });

    it('refuses a duplicate email in any case within the organization: 409 ALREADY_EXISTS', async () => {
      const password = 'a long enough password #2';
      await createUser(tenant.auth, { email: 'dup@example.com', password, role: 'viewer' }).then((r) =>
        expect(r.status).toBe(201),
      );
      const duplicate = await createUser(tenant.auth, { email: 'DUP@example.com', password, role: 'developer' });
      expectError(duplicate, 409, 'conflict_error', 'ALREADY_EXISTS');
      expect(duplicate.body.error.param).toBe('email');
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM users WHERE email = 'dup@example.com'`);
      expect(count).toBe(1);
    });

    it('validates email, password length and role', async () => {
      const short = await createUser(tenant.auth, { email: 'short@example.com', password: 'elevenchars', role: 'viewer' });
      expectError(short, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(short.body.error.errors).toEqual([expect.objectContaining({ param: 'password', code: 'OUT_OF_RANGE' })]);
      const twelve = await createUser(tenant.auth, { email: 'twelve@example.com', password: 'twelve chars', role: 'viewer' });
      expect(twelve.status).toBe(201);
      const role = await createUser(tenant.auth, { email: 'role@example.com', password: 'a long enough password', role: 'root' });
      expectError(role, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(role.body.error.errors).toEqual([expect.objectContaining({ param: 'role', code: 'INVALID_VALUE' })]);
      const email = await createUser(tenant.auth, { email: 'nope', password: 'a long enough password', role: 'viewer' });
      expectError(email, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(email.body.error.errors).toEqual([expect.objectContaining({ param: 'email', code: 'INVALID_FORMAT' })]);
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM users WHERE email IN ('short@example.com', 'role@example.com')`,
      );
      expect(count).toBe(0);
    });

    it('lets a viewer read users but not write them: 403 INSUFFICIENT_SCOPE', async () => {
      const password = 'viewer password 123';
      await createUser(tenant.auth, { email: 'viewer@example.com', password, role: 'viewer' });
      const viewer = await signIn(t, 'viewer@example.com', password);
      await t.http.get('/v1/users').set('Authorization', viewer).expect(200);
      const refused = await createUser(viewer, { email: 'by-viewer@example.com', password, role: 'viewer' });
      expectError(refused, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
      expect(refused.body.error.details).toEqual({ required_scope: 'users:write' });
      const customer = await t.http
        .post('/v1/customers')
        .set('Authorization', viewer)
        .set('Idempotency-Key', idem())
        .send({ name: 'By viewer', currency: 'EUR' });
      expectError(customer, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
    });

    it('keeps administration from a developer; a key may grant no role wider than itself (403 SCOPE_NOT_GRANTABLE)', async () => {
      const password = 'developer password 1';
      await createUser(tenant.auth, { email: 'developer@example.com', password, role: 'developer' });
      const developer = await signIn(t, 'developer@example.com', password);
      // A developer holds no users:write at all: the guard refuses before any role check.
      const byDeveloper = await createUser(developer, { email: 'dev-admin@example.com', password, role: 'admin' });
      expectError(byDeveloper, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
      // ...but may write customers.
      await t.http
        .post('/v1/customers')
        .set('Authorization', developer)
        .set('Idempotency-Key', idem())
        .send({ name: 'By developer', currency: 'EUR' })
        .expect(201);

      const inviter = await createKey(t, tenant.auth, { name: 'inviter', scopes: ['users:read', 'users:write'] });
      for (const role of ['owner', 'admin', 'developer', 'viewer']) {
        const refused = await createUser(`Bearer ${inviter.secret}`, { email: `key-${role}@example.com`, password, role });
        expectError(refused, 403, 'permission_error', 'SCOPE_NOT_GRANTABLE');
        expect(refused.body.error.param).toBe('role');
        expect(refused.body.error.details.not_grantable).toEqual(expect.arrayContaining(['customers:read']));
      }
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM users WHERE email LIKE 'key-%@example.com'`);
      expect(count).toBe(0);

      // Users who can approve are a human owner's choice: not an API key's (even the root key), not an admin's.
      expectError(
        await createUser(tenant.auth, { email: 'admin2@example.com', password, role: 'admin' }),
        403,
        'permission_error',
        'HUMAN_SESSION_REQUIRED',
      );
      const ownerSession = await signIn(t, owner.email, owner.password);
      expect((await createUser(ownerSession, { email: 'admin2@example.com', password, role: 'admin' })).status).toBe(201);
      const admin = await signIn(t, 'admin2@example.com', password);
      for (const role of ['admin', 'owner']) {
        const byAdmin = await createUser(admin, { email: `admin3-${role}@example.com`, password, role });
        expectError(byAdmin, 403, 'permission_error', 'OWNER_ROLE_REQUIRED');
      }
      expect((await createUser(admin, { email: 'admin3@example.com', password, role: 'developer' })).status).toBe(201);
    });

    it("lists the organization's users, newest first, with cursor pagination, and never another organization's", async () => {
      const other = await createTenant(t, { withOwner: true });
      const listed: any[] = [];
      let cursor: string | null = null;
      do {
        const page: request.Response = remember(
          await t.http
            .get(`/v1/users?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
            .set('Authorization', tenant.auth)
            .expect(200),
        );
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        listed.push(...page.body.data);
        cursor = page.body.pagination.cursor;
        expect(cursor === null).toBe(!page.body.pagination.has_more);
      } while (cursor);

      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM users WHERE organization_id = $1', [
        tenant.organization_id,
      ]);
      expect(listed).toHaveLength(count);
      expect(new Set(listed.map((user) => user.id)).size).toBe(count);
      expect(listed.map((user) => user.email)).toEqual(expect.arrayContaining([owner.email, 'finance@example.com']));
      expect(listed.map((user) => user.email)).not.toContain(other.owner!.email);
      const order = listed.map((user) => user.created_at);
      expect([...order].sort().reverse()).toEqual(order);
      for (const user of listed) {
        expect(Object.keys(user).sort()).toEqual(['created_at', 'email', 'id', 'object', 'role']);
      }
      const theirs = await t.http.get('/v1/users').set('Authorization', other.auth).expect(200);
      expect(theirs.body.data.map((user: { email: string }) => user.email)).toEqual([other.owner!.email]);
    });

    it('never returns a password or its hash in any response', () => {
      expect(seen.length).toBeGreaterThan(10);
      passwords.add(owner.password);
      for (const text of seen) {
        expect(text).not.toMatch(/"password(_hash)?"\s*:|scrypt\$/);
        for (const password of passwords) expect(text).not.toContain(password);
      }
    });
  });

  describe('addresses are per organization: nothing about another organization’s users is learned or blocked', () => {
    const password = 'per organization password';

    function signInAs(body: Record<string, unknown>): Promise<request.Response> {
      return t.http
        .post('/v1/sessions')
        .send(body)
        .then((response) => response);
    }

    it('lets another organization create an address that exists here (201, not 409); each signs in to its own user', async () => {
      const other = await createTenant(t);
      const here = await createUser(tenant.auth, { email: 'shared@example.com', password, role: 'viewer' });
      expect(here.status).toBe(201);
      const there = await createUser(other.auth, { email: 'Shared@Example.com', password: `${password} 2`, role: 'developer' });
      expect(there.status).toBe(201);
      expect(there.body.id).not.toBe(here.body.id);

      const mine = await signInAs({ organization_id: tenant.organization_id, email: 'shared@example.com', password });
      expect(mine.status).toBe(201);
      expect(mine.body).toEqual(expect.objectContaining({ user_id: here.body.id, organization_id: tenant.organization_id }));
      const theirs = await signInAs({
        organization_id: other.organization_id,
        email: 'shared@example.com',
        password: `${password} 2`,
      });
      expect(theirs.body).toEqual(expect.objectContaining({ user_id: there.body.id, organization_id: other.organization_id }));
      // One organization's password never opens the other's user.
      const crossed = await signInAs({ organization_id: other.organization_id, email: 'shared@example.com', password });
      expectError(crossed, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    });

    it('answers a sign-in without organization_id for a user created now as a wrong password, whether or not another organization holds the address', async () => {
      const other = await createTenant(t);
      await createUser(tenant.auth, { email: 'only-here@example.com', password, role: 'viewer' });
      await createUser(tenant.auth, { email: 'also-there@example.com', password, role: 'viewer' });
      await createUser(other.auth, { email: 'also-there@example.com', password, role: 'viewer' });
      const alone = await signInAs({ email: 'only-here@example.com', password });
      const shared = await signInAs({ email: 'also-there@example.com', password });
      for (const response of [alone, shared]) expectError(response, 401, 'authentication_error', 'INVALID_CREDENTIALS');
      expect(without(shared.body.error, 'request_id')).toEqual(without(alone.body.error, 'request_id'));
    });

    it('keeps signing in without organization_id the users who existed before (migration flag), even once another organization takes the address', async () => {
      const veteran = await createTenant(t, { withOwner: true });
      // What the migrations did to every user they found.
      const listLegacy = (email: string, organizationId: string, userId: string) =>
        db.query('INSERT INTO legacy_sign_ins (email, user_organization_id, user_id) VALUES ($1, $2, $3)', [
          email,
          organizationId,
          userId,
        ]);
      await listLegacy(veteran.owner!.email, veteran.organization_id, veteran.user_id!);
      const squatter = await createUser(tenant.auth, { email: veteran.owner!.email, password, role: 'developer' });
      expect(squatter.status).toBe(201);

      const legacy = await signInAs({ email: veteran.owner!.email, password: veteran.owner!.password });
      expect(legacy.status).toBe(201);
      expect(legacy.body).toEqual(
        expect.objectContaining({ user_id: veteran.user_id, organization_id: veteran.organization_id }),
      );
      // The squatter's own password opens nothing without its organization, and its user only with it.
      expectError(await signInAs({ email: veteran.owner!.email, password }), 401, 'authentication_error', 'INVALID_CREDENTIALS');
      const named = await signInAs({ organization_id: tenant.organization_id, email: veteran.owner!.email, password });
      expect(named.body.user_id).toBe(squatter.body.id);
      // The database holds it: one user per address may sign in without naming an organization.
      await expect(listLegacy(veteran.owner!.email, tenant.organization_id, squatter.body.id)).rejects.toThrow(
        /legacy_sign_ins_pkey/,
      );
    });
  });
});
