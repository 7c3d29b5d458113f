import { createHash, randomUUID } from 'node:crypto';
import { COMPLETE_ROTATION_JOB } from '@app/identity';
import { JobQueue, ManualClock } from '@app/shared-kernel';
import { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { eventually, expectError, expectFieldError, without } from '../support/auth-helpers';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

// The e2e project's testTimeout is not a per-project option in Jest: set it here.
jest.setTimeout(30_000);

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const SECRET = /^sk_(live|test)_[0-9A-Za-z]{49}$/;
const KEY_FIELDS = [
  'allowed_ips',
  'created_at',
  'expires_at',
  'id',
  'key_type',
  'last_used_at',
  'name',
  'object',
  'prefix',
  'revoked_at',
  'revokes_at',
  'scopes',
  'status',
];

function bearer(secret: string): string {
  return `Bearer ${secret}`;
}

describe('API keys: create, list, update, rotate, revoke', () => {
  let t: TestApp;
  let clock: ManualClock;
  let org: TestTenant;
  let other: TestTenant;
  /** Every plaintext secret this file sees, for the at-rest scan. */
  const secrets: string[] = [];

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await createTestApp({ clock });
    org = await createTenant(t, { withOwner: true });
    other = await createTenant(t);
    secrets.push(org.rootKey, other.rootKey, org.sandbox_api_key.secret, other.sandbox_api_key.secret);
  });
  afterAll(() => t.close());

  async function mint(auth: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const key = await createKey(t, auth, body, headers);
    secrets.push(key.secret);
    return key;
  }

  function post(path: string, auth: string, body: unknown = undefined, headers: Record<string, string> = {}) {
    const request = t.http.post(path).set('Authorization', auth).set('Idempotency-Key', idem()).set(headers);
    return body === undefined ? request : request.send(body as object);
  }

  async function listAll(auth = org.auth): Promise<any[]> {
    const response = await t.http.get('/v1/api_keys?limit=200').set('Authorization', auth).expect(200);
    expect(response.body.pagination).toEqual({ cursor: null, has_more: false });
    return response.body.data;
  }

  async function listed(id: string): Promise<any> {
    return (await listAll()).find((row) => row.id === id);
  }

  /** The owner's session: signed in anew, since the clock moves past a session's lifetime in this file. */
  function ownerSession(): Promise<string> {
    return signIn(t, org.owner!.email, org.owner!.password);
  }

  function usable(secret: string, headers: Record<string, string> = {}) {
    return t.http.get('/v1/permissions').set('Authorization', bearer(secret)).set(headers);
  }

  describe('create', () => {
    it('answers 201 with Location, the secret once and every field', async () => {
      const expiresAt = new Date(clock.now().getTime() + 30 * DAY);
      const response = await post('/v1/api_keys', org.auth, {
        name: '  Billing worker  ',
        scopes: ['wallets:write', 'customers:read', 'wallets:write'],
        allowed_ips: [' 203.0.113.0/24 ', '127.0.0.1', '2001:db8::/32'],
        expires_at: expiresAt.toISOString(),
      }).expect(201);
      const body = response.body;
      secrets.push(body.secret);
      expect(Object.keys(body).sort()).toEqual([...KEY_FIELDS, 'secret'].sort());
      expect(body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        object: 'api_key',
        name: 'Billing worker',
        prefix: body.secret.slice(0, 12),
        key_type: 'sk_live',
        scopes: expect.any(Array),
        allowed_ips: ['203.0.113.0/24', '127.0.0.1', '2001:db8::/32'],
        expires_at: expiresAt.toISOString(),
        last_used_at: null,
        created_at: clock.now().toISOString(),
        revoked_at: null,
        revokes_at: null,
        status: 'active',
        secret: expect.stringMatching(SECRET),
      });
      expect([...body.scopes].sort()).toEqual(['customers:read', 'wallets:write']);
      expect(body.secret.startsWith('sk_live_')).toBe(true);
      expect(body.prefix).toHaveLength(12);
      expect(response.headers.location).toBe(`/v1/api_keys/${body.id}`);

      // The key works at once, and the list shows the same metadata without the secret.
      await usable(body.secret).expect(200);
      expect(await listed(body.id)).toEqual(without(body, 'secret'));
    });

    it('stores only the SHA-256 of the secret and the 12-character prefix', async () => {
      const key = await mint(org.auth, { name: 'digest check', scopes: ['costs:read'] });
      const [row] = await t.app
        .get(DataSource)
        .query('SELECT prefix, secret_hash FROM api_keys WHERE organization_id = $1 AND id = $2', [org.organization_id, key.id]);
      expect(row.prefix).toBe(key.secret.slice(0, 12));
      expect(Buffer.from(row.secret_hash).equals(createHash('sha256').update(key.secret).digest())).toBe(true);
    });

    it('replays a retried create with the same Idempotency-Key instead of minting a second key', async () => {
      const before = (await listAll()).length;
      const key = idem();
      const body = { name: 'retried', scopes: ['costs:read'] };
      const first = await t.http
        .post('/v1/api_keys')
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      secrets.push(first.body.secret);
      const again = await t.http
        .post('/v1/api_keys')
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(`/v1/api_keys/${first.body.id}`);
      expect((await listAll()).length).toBe(before + 1);
      const reused = await t.http
        .post('/v1/api_keys')
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .send({ ...body, name: 'another' });
      expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('requires an Idempotency-Key', async () => {
      const response = await t.http
        .post('/v1/api_keys')
        .set('Authorization', org.auth)
        .send({ name: 'x', scopes: ['costs:read'] });
      expectError(response, 400, 'IDEMPOTENCY_KEY_REQUIRED');
    });

    describe('refuses invalid input with 400 and mints nothing', () => {
      let before: number;
      beforeAll(async () => {
        before = (await listAll()).length;
      });
      afterAll(async () => {
        expect((await listAll()).length).toBe(before);
      });

      it('an empty scope list: REQUIRED', async () => {
        expectFieldError(await post('/v1/api_keys', org.auth, { name: 'x', scopes: [] }), 'scopes', 'REQUIRED');
      });

      it('an unknown scope: INVALID_SCOPE naming its index', async () => {
        const response = await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['wallets:read', 'wallets:delete'] });
        expectFieldError(response, 'scopes[1]', 'INVALID_SCOPE');
        expectFieldError(await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['*'] }), 'scopes[0]', 'INVALID_SCOPE');
        expectFieldError(await post('/v1/api_keys', org.auth, { name: 'x', scopes: [42] }), 'scopes[0]', 'INVALID_SCOPE');
      });

      it('scopes that are missing or not an array', async () => {
        for (const body of [{ name: 'x' }, { name: 'x', scopes: 'wallets:read' }, { name: 'x', scopes: null }]) {
          const error = expectError(await post('/v1/api_keys', org.auth, body), 400, 'VALIDATION_ERROR');
          expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'scopes' })]));
        }
      });

      it('a blank, missing or overlong name', async () => {
        expectFieldError(await post('/v1/api_keys', org.auth, { name: '   ', scopes: ['costs:read'] }), 'name', 'OUT_OF_RANGE');
        expectFieldError(
          await post('/v1/api_keys', org.auth, { name: 'x'.repeat(201), scopes: ['costs:read'] }),
          'name',
          'OUT_OF_RANGE',
        );
        const missing = expectError(await post('/v1/api_keys', org.auth, { scopes: ['costs:read'] }), 400, 'VALIDATION_ERROR');
        expect(missing.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'name' })]));
      });

      it.each([
        [['10.0.0.0/33'], 'allowed_ips[0]'],
        [['127.0.0.1', 'localhost'], 'allowed_ips[1]'],
        [['1.2.3'], 'allowed_ips[0]'],
        [['0x7f.1'], 'allowed_ips[0]'],
        [['10.0.0.1/8/1'], 'allowed_ips[0]'],
        [['2001:db8::/129'], 'allowed_ips[0]'],
        [['10.0.0.0/-1'], 'allowed_ips[0]'],
        [[''], 'allowed_ips[0]'],
        [[7], 'allowed_ips[0]'],
      ])('allowed_ips %j: INVALID_IP at %s', async (allowedIps, param) => {
        const response = await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['costs:read'], allowed_ips: allowedIps });
        expectFieldError(response, param, 'INVALID_IP');
      });

      it('an expires_at in the past, now, or not a timestamp', async () => {
        const past = new Date(clock.now().getTime() - 1000).toISOString();
        expectFieldError(
          await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['costs:read'], expires_at: past }),
          'expires_at',
          'OUT_OF_RANGE',
        );
        const now = clock.now().toISOString();
        expectFieldError(
          await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['costs:read'], expires_at: now }),
          'expires_at',
          'OUT_OF_RANGE',
        );
        const garbage = await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['costs:read'], expires_at: 'tomorrow' });
        expect(expectError(garbage, 400, 'VALIDATION_ERROR').errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ param: 'expires_at' })]),
        );
      });

      it('an unknown key_type or an unknown field', async () => {
        const keyType = await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['costs:read'], key_type: 'sk_prod' });
        expect(expectError(keyType, 400, 'VALIDATION_ERROR').errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ param: 'key_type' })]),
        );
        expectFieldError(
          await post('/v1/api_keys', org.auth, { name: 'x', scopes: ['costs:read'], role: 'admin' }),
          'role',
          'UNKNOWN_PARAMETER',
        );
      });
    });

    it('refuses scopes beyond the minter’s own with 403 SCOPE_NOT_GRANTABLE', async () => {
      const minter = await mint(org.auth, { name: 'minter', scopes: ['api_keys:write', 'customers:read'] });
      const before = (await listAll()).length;
      const refused = await post('/v1/api_keys', bearer(minter.secret), {
        name: 'wider',
        scopes: ['customers:read', 'wallets:write'],
      });
      const error = expectError(refused, 403, 'SCOPE_NOT_GRANTABLE');
      expect(error.details).toEqual({ not_grantable: ['wallets:write'] });
      const selfEscalation = await post('/v1/api_keys', bearer(minter.secret), { name: 'reader', scopes: ['api_keys:read'] });
      expect(expectError(selfEscalation, 403, 'SCOPE_NOT_GRANTABLE').details).toEqual({ not_grantable: ['api_keys:read'] });
      expect((await listAll()).length).toBe(before);

      const narrower = await mint(bearer(minter.secret), { name: 'narrower', scopes: ['customers:read'] });
      expect(narrower.body.scopes).toEqual(['customers:read']);
    });

    it('refuses a caller without api_keys:write with 403 INSUFFICIENT_SCOPE', async () => {
      const reader = await mint(org.auth, { name: 'reader', scopes: ['api_keys:read'] });
      const error = expectError(
        await post('/v1/api_keys', bearer(reader.secret), { name: 'x', scopes: ['api_keys:read'] }),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(error.details).toEqual({ required_scope: 'api_keys:write' });
    });

    describe('key_type', () => {
      it('defaults to sk_live on the live workspace and to sk_test on the sandbox one', async () => {
        const session = await ownerSession();
        const live = await mint(session, { name: 'live default', scopes: ['costs:read'] });
        expect(live.body.key_type).toBe('sk_live');
        expect(live.secret).toMatch(/^sk_live_/);
        const sandbox = await mint(session, { name: 'sandbox default', scopes: ['costs:read'] }, { 'X-Workspace-Id': 'sandbox' });
        expect(sandbox.body.key_type).toBe('sk_test');
        expect(sandbox.secret).toMatch(/^sk_test_/);
        expect(sandbox.body.prefix).toBe(sandbox.secret.slice(0, 12));
        const byId = await mint(
          session,
          { name: 'sandbox by id', scopes: ['costs:read'] },
          { 'X-Workspace-Id': org.sandboxWorkspaceId },
        );
        expect(byId.body.key_type).toBe('sk_test');
        // The root sk_live key inherits live.
        const fromRoot = await mint(org.auth, { name: 'root default', scopes: ['costs:read'] });
        expect(fromRoot.body.key_type).toBe('sk_live');
        // A sk_test key works on the sandbox, a sk_live key on live.
        await usable(sandbox.secret).expect(200);
        expectError(await usable(sandbox.secret, { 'X-Workspace-Id': 'live' }), 403, 'WORKSPACE_MODE_MISMATCH');
      });

      it('lets a live session mint either type explicitly', async () => {
        const session = await ownerSession();
        const test = await mint(session, { name: 'explicit test', scopes: ['costs:read'], key_type: 'sk_test' });
        expect(test.body.key_type).toBe('sk_test');
        expect(test.secret).toMatch(/^sk_test_/);
        const live = await mint(session, { name: 'explicit live', scopes: ['costs:read'], key_type: 'sk_live' });
        expect(live.body.key_type).toBe('sk_live');
      });

      it('lets a live key mint sk_test keys, never wider than its own scopes', async () => {
        const test = await mint(org.auth, { name: 'test from live', scopes: ['costs:read'], key_type: 'sk_test' });
        expect(test.body.key_type).toBe('sk_test');
        expect(test.secret).toMatch(/^sk_test_/);
        // A key for test data only: the sandbox by default, never live.
        await usable(test.secret).expect(200);
        expectError(await usable(test.secret, { 'X-Workspace-Id': 'live' }), 403, 'WORKSPACE_MODE_MISMATCH');

        const minter = await mint(org.auth, { name: 'narrow live minter', scopes: ['api_keys:write', 'customers:read'] });
        const before = (await listAll()).length;
        const wider = await post('/v1/api_keys', bearer(minter.secret), {
          name: 'wider test',
          scopes: ['customers:read', 'wallets:write'],
          key_type: 'sk_test',
        });
        expect(expectError(wider, 403, 'SCOPE_NOT_GRANTABLE').details).toEqual({ not_grantable: ['wallets:write'] });
        expect((await listAll()).length).toBe(before);
        const narrower = await mint(bearer(minter.secret), {
          name: 'narrower test',
          scopes: ['customers:read'],
          key_type: 'sk_test',
        });
        expect(narrower.body).toEqual(expect.objectContaining({ key_type: 'sk_test', scopes: ['customers:read'] }));
      });

      it('refuses a sandbox principal a sk_live key with 403 KEY_TYPE_NOT_GRANTABLE', async () => {
        const before = (await listAll()).length;
        // The root sk_live key cannot address the sandbox at all.
        const sandbox = await post(
          '/v1/api_keys',
          org.auth,
          { name: 'x', scopes: ['costs:read'] },
          { 'X-Workspace-Id': 'sandbox' },
        );
        expectError(sandbox, 403, 'WORKSPACE_MODE_MISMATCH');

        // The sandbox root key, a sk_test key minted from live, and a session on the sandbox workspace.
        const session = await ownerSession();
        const testMinter = await mint(org.auth, {
          name: 'test minter',
          scopes: ['api_keys:write', 'costs:read'],
          key_type: 'sk_test',
        });
        const sandboxPrincipals: Array<[string, Record<string, string>]> = [
          [org.sandboxAuth, {}],
          [bearer(testMinter.secret), {}],
          [session, { 'X-Workspace-Id': 'sandbox' }],
        ];
        for (const [auth, headers] of sandboxPrincipals) {
          const upgrade = await post('/v1/api_keys', auth, { name: 'x', scopes: ['costs:read'], key_type: 'sk_live' }, headers);
          const error = expectError(upgrade, 403, 'KEY_TYPE_NOT_GRANTABLE');
          expect(error.param).toBe('key_type');
          expect(error.details).toEqual({ key_type: 'sk_live' });
        }
        expect((await listAll()).length).toBe(before + 1);

        const same = await mint(bearer(testMinter.secret), { name: 'same type', scopes: ['costs:read'] });
        expect(same.body.key_type).toBe('sk_test');
        const explicit = await mint(org.sandboxAuth, { name: 'same type', scopes: ['costs:read'], key_type: 'sk_test' });
        expect(explicit.body.key_type).toBe('sk_test');
      });
    });

    describe('limits inherited from the minting key', () => {
      it('a child never outlives its minter nor widens its network: inherited when omitted, 403 when wider', async () => {
        const expiresAt = new Date(clock.now().getTime() + 90_000);
        const minter = await mint(org.auth, {
          name: 'short-lived minter',
          scopes: ['api_keys:write', 'costs:read'],
          allowed_ips: ['127.0.0.0/8'],
          expires_at: expiresAt.toISOString(),
        });
        const auth = bearer(minter.secret);
        const child = await mint(auth, { name: 'child', scopes: ['costs:read'] });
        expect(child.body).toEqual(
          expect.objectContaining({ expires_at: expiresAt.toISOString(), allowed_ips: ['127.0.0.0/8'] }),
        );
        const narrower = await mint(auth, {
          name: 'narrower',
          scopes: ['costs:read'],
          allowed_ips: ['127.0.0.1'],
          expires_at: new Date(expiresAt.getTime() - 1000).toISOString(),
        });
        expect(narrower.body.allowed_ips).toEqual(['127.0.0.1']);

        const later = await post('/v1/api_keys', auth, {
          name: 'later',
          scopes: ['costs:read'],
          expires_at: new Date(expiresAt.getTime() + 1000).toISOString(),
        });
        expect(expectError(later, 403, 'EXPIRY_NOT_GRANTABLE')).toEqual(
          expect.objectContaining({ param: 'expires_at', details: { minter_expires_at: expiresAt.toISOString() } }),
        );
        for (const allowedIps of [[], ['0.0.0.0/0'], ['127.0.0.1', '203.0.113.7'], ['::1']]) {
          const wider = await post('/v1/api_keys', auth, { name: 'wider', scopes: ['costs:read'], allowed_ips: allowedIps });
          expect(expectError(wider, 403, 'IP_RANGE_NOT_GRANTABLE').param).toBe('allowed_ips');
        }
        expect((await listAll()).filter((row) => ['later', 'wider'].includes(row.name))).toEqual([]);

        // The child dies with its minter.
        await usable(child.secret).expect(200);
        clock.advance(90_000);
        expectError(await usable(child.secret), 401, 'API_KEY_EXPIRED');
      });

      it('a session does not bound what it mints: the human’s authority outlives the sign-in', async () => {
        const session = await ownerSession();
        const key = await mint(session, { name: 'from the dashboard', scopes: ['costs:read'] });
        expect(key.body).toEqual(expect.objectContaining({ expires_at: null, allowed_ips: [] }));
      });
    });
  });

  describe('list', () => {
    it('shows metadata only, never a secret or a hash', async () => {
      await mint(org.auth, { name: 'listed', scopes: ['costs:read'], allowed_ips: ['10.0.0.0/8'] });
      const response = await t.http.get('/v1/api_keys').set('Authorization', org.auth).expect(200);
      expect(response.body.data.length).toBeGreaterThan(0);
      for (const row of response.body.data) {
        expect(Object.keys(row).sort()).toEqual(KEY_FIELDS);
        expect(row.object).toBe('api_key');
        expect(['active', 'expired', 'revoked']).toContain(row.status);
      }
      const raw = response.text;
      for (const secret of secrets) {
        expect(raw).not.toContain(secret);
        expect(raw).not.toContain(secret.slice(12));
        const hash = createHash('sha256').update(secret).digest();
        expect(raw).not.toContain(hash.toString('hex'));
        expect(raw).not.toContain(hash.toString('base64'));
      }
    });

    it('lists the organization’s keys only, newest first, with keyset pagination', async () => {
      const created: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        clock.advance(1000);
        created.push((await mint(org.auth, { name: `page-${i}`, scopes: ['costs:read'] })).id);
      }
      // Two more in the same millisecond: the id breaks the tie.
      created.push((await mint(org.auth, { name: 'tie-a', scopes: ['costs:read'] })).id);
      created.push((await mint(org.auth, { name: 'tie-b', scopes: ['costs:read'] })).id);
      const all = await listAll();
      expect(all.slice(0, 5).map((row) => row.id)).toEqual([...created].reverse());
      for (let i = 1; i < all.length; i += 1) {
        const [newer, older] = [all[i - 1], all[i]];
        expect(newer.created_at > older.created_at || (newer.created_at === older.created_at && newer.id > older.id)).toBe(true);
      }
      const ids = new Set(all.map((row) => row.id));
      expect(ids.has(org.api_key.id)).toBe(true);
      expect(ids.has(other.api_key.id)).toBe(false);
      expect(ids.has(other.sandbox_api_key.id)).toBe(false);
      const theirs = await listAll(other.auth);
      expect(theirs.map((row) => row.id).sort()).toEqual([other.api_key.id, other.sandbox_api_key.id].sort());

      const walked: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const page: Response = await t.http.get(`/v1/api_keys${query}`).set('Authorization', org.auth).expect(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        walked.push(...page.body.data.map((row: { id: string }) => row.id));
        cursor = page.body.pagination.cursor;
        expect(cursor === null).toBe(!page.body.pagination.has_more);
        pages += 1;
      } while (cursor);
      expect(walked).toEqual(all.map((row) => row.id));
      expect(pages).toBe(Math.ceil(all.length / 2));
    });

    it('refuses a tampered or foreign cursor with 400 INVALID_CURSOR', async () => {
      const first = await t.http.get('/v1/api_keys?limit=1').set('Authorization', org.auth).expect(200);
      const cursor: string = first.body.pagination.cursor;
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
      expectError(await t.http.get(`/v1/api_keys?cursor=${tampered}`).set('Authorization', org.auth), 400, 'INVALID_CURSOR');
      const workspaces = await t.http.get('/v1/workspaces?limit=1').set('Authorization', org.auth).expect(200);
      const foreign = encodeURIComponent(workspaces.body.pagination.cursor);
      expectError(await t.http.get(`/v1/api_keys?cursor=${foreign}`).set('Authorization', org.auth), 400, 'INVALID_CURSOR');
    });

    it('shows a sandbox principal sk_test keys only: live keys do not exist for it', async () => {
      const live = await mint(org.auth, { name: 'live only', scopes: ['costs:read'] });
      const test = await mint(org.auth, { name: 'test visible', scopes: ['costs:read'], key_type: 'sk_test' });
      const seen = await listAll(org.sandboxAuth);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((row) => row.key_type === 'sk_test')).toBe(true);
      const ids = seen.map((row) => row.id);
      expect(ids).toEqual(expect.arrayContaining([test.id, org.sandbox_api_key.id]));
      expect(ids).not.toContain(live.id);
      expect(ids).not.toContain(org.api_key.id);
      // The live view still shows both types.
      expect((await listAll()).map((row) => row.id)).toEqual(expect.arrayContaining([live.id, test.id]));
    });

    it('requires api_keys:read', async () => {
      const key = await mint(org.auth, { name: 'writer', scopes: ['api_keys:write'] });
      const error = expectError(
        await t.http.get('/v1/api_keys').set('Authorization', bearer(key.secret)),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(error.details).toEqual({ required_scope: 'api_keys:read' });
      const reader = await mint(org.auth, { name: 'reader', scopes: ['api_keys:read'] });
      await t.http.get('/v1/api_keys').set('Authorization', bearer(reader.secret)).expect(200);
    });

    it('records last_used_at within a few seconds of a use', async () => {
      const key = await mint(org.auth, { name: 'used', scopes: ['costs:read'] });
      expect((await listed(key.id)).last_used_at).toBeNull();
      const usedAt = clock.now().toISOString();
      await usable(key.secret).expect(200);
      const lastUsed = await eventually(async () => (await listed(key.id)).last_used_at ?? undefined, 7000, 250);
      expect(lastUsed).toBe(usedAt);
      // A refused request is no use.
      const fenced = await mint(org.auth, { name: 'fenced', scopes: ['costs:read'], allowed_ips: ['10.0.0.0/8'] });
      expectError(await usable(fenced.secret), 403, 'IP_NOT_ALLOWED');
      await new Promise((resolve) => setTimeout(resolve, 5500));
      expect((await listed(fenced.id)).last_used_at).toBeNull();
    });
  });

  describe('revoke', () => {
    it('answers 200 with the revoked key; the very next request with it gets 401 API_KEY_REVOKED', async () => {
      for (let i = 0; i < 5; i += 1) {
        const key = await mint(org.auth, { name: `revoked-${i}`, scopes: ['costs:read'] });
        await usable(key.secret).expect(200); // cached now
        const response = await post(`/v1/api_keys/${key.id}/revoke`, org.auth).expect(200);
        expect(response.body).toEqual({
          ...key.body,
          secret: undefined,
          status: 'revoked',
          revoked_at: clock.now().toISOString(),
        });
        expect(response.body).not.toHaveProperty('secret');
        expectError(await usable(key.secret), 401, 'API_KEY_REVOKED');
      }
    });

    it('is idempotent: revoking twice answers 200 and changes nothing', async () => {
      const key = await mint(org.auth, { name: 'twice', scopes: ['costs:read'] });
      const first = await post(`/v1/api_keys/${key.id}/revoke`, org.auth).expect(200);
      clock.advance(60_000);
      const second = await post(`/v1/api_keys/${key.id}/revoke`, org.auth).expect(200);
      expect(second.body).toEqual(first.body);
      expect(await listed(key.id)).toEqual(first.body);
    });

    it('lets a key revoke itself', async () => {
      const key = await mint(org.auth, { name: 'self', scopes: ['api_keys:write'] });
      await post(`/v1/api_keys/${key.id}/revoke`, bearer(key.secret)).expect(200);
      expectError(await post(`/v1/api_keys/${key.id}/revoke`, bearer(key.secret)), 401, 'API_KEY_REVOKED');
    });

    it('answers 404 API_KEY_NOT_FOUND for an unknown, foreign or malformed id, and leaves the foreign key working', async () => {
      for (const id of [randomUUID(), other.api_key.id, 'not-a-uuid', '1']) {
        expect(expectError(await post(`/v1/api_keys/${id}/revoke`, org.auth), 404, 'API_KEY_NOT_FOUND').param).toBe('id');
      }
      await usable(other.rootKey).expect(200);
    });

    it('answers a sandbox principal revoking a sk_live key as for an unknown key: 404, and the key keeps working', async () => {
      const live = await mint(org.auth, { name: 'live, out of reach', scopes: ['costs:read'] });
      const refused = await post(`/v1/api_keys/${live.id}/revoke`, org.sandboxAuth);
      expect(expectError(refused, 404, 'API_KEY_NOT_FOUND').param).toBe('id');
      await usable(live.secret).expect(200);
      expect(await listed(live.id)).toEqual(expect.objectContaining({ status: 'active', revoked_at: null }));
      const test = await mint(org.sandboxAuth, { name: 'sandbox, in reach', scopes: ['costs:read'] });
      expect((await post(`/v1/api_keys/${test.id}/revoke`, org.sandboxAuth).expect(200)).body.status).toBe('revoked');
    });

    it('needs what rotating needs: a caller lacking one of the key’s scopes gets 403 SCOPE_NOT_GRANTABLE and the key keeps working', async () => {
      const narrow = await mint(org.auth, { name: 'keys only', scopes: ['api_keys:write'] });
      const root = expectError(
        await post(`/v1/api_keys/${org.api_key.id}/revoke`, bearer(narrow.secret)),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      expect(root.details.not_grantable).toEqual(expect.arrayContaining(['wallets:write', 'api_keys:read']));
      await usable(org.rootKey).expect(200);
      const target = await mint(org.auth, { name: 'wider target', scopes: ['customers:read', 'wallets:write'] });
      const rotator = await mint(org.auth, { name: 'narrow revoker', scopes: ['api_keys:write', 'customers:read'] });
      const revoked = expectError(
        await post(`/v1/api_keys/${target.id}/revoke`, bearer(rotator.secret)),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      const rotated = expectError(
        await post(`/v1/api_keys/${target.id}/rotate`, bearer(rotator.secret)),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      expect(revoked.details).toEqual({ not_grantable: ['wallets:write'] });
      expect(rotated.details).toEqual(revoked.details);
      expect(await listed(target.id)).toEqual(expect.objectContaining({ status: 'active', revoked_at: null, revokes_at: null }));
      await usable(target.secret).expect(200);
      const peer = await mint(org.auth, { name: 'within reach', scopes: ['customers:read'] });
      expect((await post(`/v1/api_keys/${peer.id}/revoke`, bearer(rotator.secret)).expect(200)).body.status).toBe('revoked');
    });

    it('requires api_keys:write', async () => {
      const target = await mint(org.auth, { name: 'target', scopes: ['costs:read'] });
      const reader = await mint(org.auth, { name: 'reader', scopes: ['api_keys:read'] });
      expectError(await post(`/v1/api_keys/${target.id}/revoke`, bearer(reader.secret)), 403, 'INSUFFICIENT_SCOPE');
      await usable(target.secret).expect(200);
    });
  });

  describe('update', () => {
    function patch(id: string, auth: string, body: unknown) {
      return t.http
        .patch(`/v1/api_keys/${id}`)
        .set('Authorization', auth)
        .send(body as object);
    }

    async function row(id: string) {
      const [stored] = await t.app
        .get(DataSource)
        .query('SELECT name, scopes, allowed_ips::text[] AS allowed_ips, version FROM api_keys WHERE id = $1', [id]);
      return stored;
    }

    async function updates(id: string) {
      return t.app
        .get(DataSource)
        .query(
          `SELECT data, principal_id FROM audit_events WHERE resource_id = $1 AND action = 'api_key.updated' ORDER BY occurred_at, id`,
          [id],
        );
    }

    it('renames, narrows and restricts: 200 with the key, kept in the database, audited, and the removed scope refused at once', async () => {
      const key = await mint(org.auth, { name: 'worker', scopes: ['costs:read', 'customers:read'] });
      await t.http.get('/v1/customers').set('Authorization', bearer(key.secret)).expect(200); // cached now
      // No Idempotency-Key: PATCH never needs one.
      const response = await patch(key.id, org.auth, {
        name: '  worker (EU) ',
        scopes: ['costs:read'],
        allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
      }).expect(200);
      expect(response.body).toEqual({
        ...key.body,
        secret: undefined,
        name: 'worker (EU)',
        scopes: ['costs:read'],
        allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
      });
      expect(Object.keys(response.body).sort()).toEqual(KEY_FIELDS);
      expect(await listed(key.id)).toEqual(response.body);
      expect(await row(key.id)).toEqual({
        name: 'worker (EU)',
        scopes: ['costs:read'],
        allowed_ips: ['127.0.0.1/32', '10.0.0.0/8'],
        version: 2,
      });
      expect(await updates(key.id)).toEqual([
        {
          principal_id: org.api_key.id,
          data: {
            changed: ['name', 'scopes', 'allowed_ips'],
            name: 'worker (EU)',
            scopes: ['costs:read'],
            allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
            previous: { name: 'worker', scopes: ['costs:read', 'customers:read'], allowed_ips: [] },
          },
        },
      ]);
      expectError(await t.http.get('/v1/customers').set('Authorization', bearer(key.secret)), 403, 'INSUFFICIENT_SCOPE');
      await t.http.get('/v1/costs').set('Authorization', bearer(key.secret)).expect(200);
    });

    it('merge-patch: absent or null leaves a field, and a patch that changes nothing writes nothing', async () => {
      const key = await mint(org.auth, { name: 'steady', scopes: ['costs:read'], allowed_ips: ['127.0.0.1'] });
      const unchanged = { ...key.body, secret: undefined };
      for (const body of [{}, { name: null, scopes: null, allowed_ips: null }, { name: 'steady', scopes: ['costs:read'] }]) {
        expect((await patch(key.id, org.auth, body).expect(200)).body).toEqual(unchanged);
      }
      expect((await patch(key.id, org.auth, { name: 'renamed only', scopes: null }).expect(200)).body).toEqual({
        ...unchanged,
        name: 'renamed only',
      });
      expect(await row(key.id)).toEqual({
        name: 'renamed only',
        scopes: ['costs:read'],
        allowed_ips: ['127.0.0.1/32'],
        version: 2,
      });
      expect((await updates(key.id)).map((event: { data: { changed: string[] } }) => event.data.changed)).toEqual([['name']]);
    });

    it('refuses scopes beyond the caller’s (403 SCOPE_NOT_GRANTABLE, as create) and addresses beyond its own (403 IP_RANGE_NOT_GRANTABLE)', async () => {
      const caller = await mint(org.auth, {
        name: 'fenced manager',
        scopes: ['api_keys:write', 'costs:read', 'customers:read'],
        allowed_ips: ['127.0.0.1'],
      });
      const target = await mint(org.auth, { name: 'managed', scopes: ['costs:read'] });
      const created = expectError(
        await post('/v1/api_keys', bearer(caller.secret), { name: 'x', scopes: ['costs:read', 'wallets:write'] }),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      const updated = expectError(
        await patch(target.id, bearer(caller.secret), { scopes: ['costs:read', 'wallets:write'] }),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      expect(updated).toEqual({ ...created, message: expect.any(String), request_id: expect.any(String) });
      expect(updated.details).toEqual({ not_grantable: ['wallets:write'] });
      for (const allowed_ips of [[], ['10.0.0.0/8'], ['127.0.0.1', '192.168.0.1']]) {
        expectError(await patch(target.id, bearer(caller.secret), { allowed_ips }), 403, 'IP_RANGE_NOT_GRANTABLE');
      }
      expect(await row(target.id)).toEqual({ name: 'managed', scopes: ['costs:read'], allowed_ips: [], version: 1 });
      const within = await patch(target.id, bearer(caller.secret), { scopes: ['customers:read'], allowed_ips: ['127.0.0.1'] });
      expect(within.status).toBe(200);
      expect(within.body).toEqual(expect.objectContaining({ scopes: ['customers:read'], allowed_ips: ['127.0.0.1'] }));
      // The caller needs every scope the key holds now, as to rotate or revoke it.
      const wider = await mint(org.auth, { name: 'wider', scopes: ['costs:read', 'wallets:write'] });
      const narrowing = expectError(
        await patch(wider.id, bearer(caller.secret), { scopes: ['costs:read'] }),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      expect(narrowing.details).toEqual({ not_grantable: ['wallets:write'] });
      expect((await row(wider.id)).scopes).toEqual(['costs:read', 'wallets:write']);
    });

    it('answers 404 API_KEY_NOT_FOUND for an unknown, foreign or malformed id, and for a live key to a sandbox principal', async () => {
      for (const id of [randomUUID(), other.api_key.id, 'not-a-uuid', '1']) {
        expect(expectError(await patch(id, org.auth, { name: 'taken over' }), 404, 'API_KEY_NOT_FOUND').param).toBe('id');
      }
      await usable(other.rootKey).expect(200);
      const live = await mint(org.auth, { name: 'live, out of reach', scopes: ['costs:read'] });
      const refused = await patch(live.id, org.sandboxAuth, { name: 'sandboxed', scopes: ['customers:read'] });
      expect(expectError(refused, 404, 'API_KEY_NOT_FOUND').param).toBe('id');
      expect(await row(live.id)).toEqual({ name: 'live, out of reach', scopes: ['costs:read'], allowed_ips: [], version: 1 });
      const test = await mint(org.sandboxAuth, { name: 'sandbox, in reach', scopes: ['costs:read'] });
      expect((await patch(test.id, org.sandboxAuth, { name: 'sandbox, renamed' }).expect(200)).body.name).toBe(
        'sandbox, renamed',
      );
    });

    it('refuses bad input with 400 and changes nothing', async () => {
      const key = await mint(org.auth, { name: 'validated', scopes: ['costs:read'] });
      expectFieldError(await patch(key.id, org.auth, { scopes: [] }), 'scopes', 'REQUIRED');
      expectFieldError(await patch(key.id, org.auth, { scopes: ['costs:read', 'costs:fly'] }), 'scopes[1]', 'INVALID_SCOPE');
      expectFieldError(await patch(key.id, org.auth, { allowed_ips: ['256.0.0.1'] }), 'allowed_ips[0]', 'INVALID_IP');
      for (const name of ['', '   ', 'x'.repeat(201)])
        expectFieldError(await patch(key.id, org.auth, { name }), 'name', 'OUT_OF_RANGE');
      for (const body of [{ name: 42 }, { scopes: 'costs:read' }, { allowed_ips: '127.0.0.1' }]) {
        expectError(await patch(key.id, org.auth, body), 400, 'VALIDATION_ERROR');
      }
      for (const field of ['expires_at', 'key_type', 'secret', 'version']) {
        expectFieldError(await patch(key.id, org.auth, { [field]: null }), field, 'UNKNOWN_PARAMETER');
      }
      expect(await row(key.id)).toEqual({ name: 'validated', scopes: ['costs:read'], allowed_ips: [], version: 1 });
      expect(await updates(key.id)).toEqual([]);
    });

    it('refuses a revoked key with 409 API_KEY_NOT_ACTIVE', async () => {
      const key = await mint(org.auth, { name: 'gone', scopes: ['costs:read'] });
      await post(`/v1/api_keys/${key.id}/revoke`, org.auth).expect(200);
      expectError(await patch(key.id, org.auth, { name: 'revived' }), 409, 'API_KEY_NOT_ACTIVE');
      expect((await row(key.id)).name).toBe('gone');
    });

    it('requires api_keys:write', async () => {
      const target = await mint(org.auth, { name: 'target', scopes: ['costs:read'] });
      const reader = await mint(org.auth, { name: 'reader', scopes: ['api_keys:read', 'costs:read'] });
      expectError(await patch(target.id, bearer(reader.secret), { name: 'hijacked' }), 403, 'INSUFFICIENT_SCOPE');
      expect((await row(target.id)).name).toBe('target');
    });
  });

  describe('rotate', () => {
    it('mints a successor with the same settings and keeps the old key working for 24 hours', async () => {
      const expiresAt = new Date(clock.now().getTime() + 30 * DAY);
      const old = await mint(org.auth, {
        name: 'rotating',
        scopes: ['customers:read', 'costs:read'],
        allowed_ips: ['127.0.0.0/8', '2001:db8::/32'],
        expires_at: expiresAt.toISOString(),
      });
      await usable(old.secret).expect(200);
      const rotatedAt = clock.now();
      const response = await post(`/v1/api_keys/${old.id}/rotate`, org.auth).expect(201);
      const successor = response.body;
      secrets.push(successor.secret);
      const revokesAt = new Date(rotatedAt.getTime() + DAY).toISOString();
      expect(successor).toEqual({
        ...old.body,
        id: expect.any(String),
        prefix: successor.secret.slice(0, 12),
        created_at: rotatedAt.toISOString(),
        secret: expect.stringMatching(SECRET),
        rotated_from: { id: old.id, revokes_at: revokesAt },
      });
      expect(successor.id).not.toBe(old.id);
      expect(successor.secret).not.toBe(old.secret);
      expect(successor.secret).toMatch(/^sk_live_/);
      expect(response.headers.location).toBe(`/v1/api_keys/${successor.id}`);

      expect(await listed(old.id)).toEqual({
        ...old.body,
        secret: undefined,
        revokes_at: revokesAt,
        status: 'active',
        revoked_at: null,
      });
      expect(await listed(successor.id)).toEqual(without(successor, 'secret', 'rotated_from'));

      await usable(old.secret).expect(200);
      await usable(successor.secret).expect(200);
      clock.advance(DAY - 1000);
      await usable(old.secret).expect(200);
      clock.advance(2000);
      expectError(await usable(old.secret), 401, 'API_KEY_REVOKED');
      await usable(successor.secret).expect(200);

      // The completion job revokes it for good.
      const dataSource = t.app.get(DataSource);
      const revokedAt = async () =>
        (await dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [old.id]))[0].revoked_at as Date | null;
      expect(await revokedAt()).toBeNull();
      await t.app.get(JobQueue).runNow(COMPLETE_ROTATION_JOB, { organizationId: org.organization_id, apiKeyId: old.id });
      expect((await revokedAt())?.toISOString()).toBe(revokesAt);
      expect(await listed(old.id)).toEqual(
        expect.objectContaining({ status: 'revoked', revoked_at: revokesAt, revokes_at: revokesAt }),
      );
      expectError(await usable(old.secret), 401, 'API_KEY_REVOKED');
      // Running it again changes nothing.
      await t.app.get(JobQueue).runNow(COMPLETE_ROTATION_JOB, { organizationId: org.organization_id, apiKeyId: old.id });
      expect((await revokedAt())?.toISOString()).toBe(revokesAt);

      expect(expectError(await post(`/v1/api_keys/${old.id}/rotate`, org.auth), 409, 'API_KEY_NOT_ACTIVE').details).toEqual({
        status: 'revoked',
      });
    });

    it('ends the grace at the key’s own expiry when that comes first', async () => {
      const expiresAt = new Date(clock.now().getTime() + 2 * HOUR);
      const old = await mint(org.auth, { name: 'expiring', scopes: ['costs:read'], expires_at: expiresAt.toISOString() });
      const response = await post(`/v1/api_keys/${old.id}/rotate`, org.auth).expect(201);
      secrets.push(response.body.secret);
      expect(response.body.rotated_from).toEqual({ id: old.id, revokes_at: expiresAt.toISOString() });
      expect(response.body.expires_at).toBe(expiresAt.toISOString());
      clock.advance(2 * HOUR);
      expectError(await usable(old.secret), 401, 'API_KEY_REVOKED');
      expectError(await usable(response.body.secret), 401, 'API_KEY_EXPIRED');
    });

    it('replays a retried rotation instead of rotating twice', async () => {
      const old = await mint(org.auth, { name: 'retried rotation', scopes: ['costs:read'] });
      const key = idem();
      const first = await t.http
        .post(`/v1/api_keys/${old.id}/rotate`)
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .expect(201);
      secrets.push(first.body.secret);
      const again = await t.http
        .post(`/v1/api_keys/${old.id}/rotate`)
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const named = (await listAll()).filter((row) => row.name === 'retried rotation');
      expect(named).toHaveLength(2);
    });

    it('keeps the key type: a sk_test key rotates into a sk_test key', async () => {
      const session = await ownerSession();
      const old = await mint(session, { name: 'test rotation', scopes: ['costs:read'] }, { 'X-Workspace-Id': 'sandbox' });
      const response = await post(`/v1/api_keys/${old.id}/rotate`, session).expect(201);
      secrets.push(response.body.secret);
      expect(response.body.key_type).toBe('sk_test');
      expect(response.body.secret).toMatch(/^sk_test_/);
    });

    it('lets a live key rotate a sk_test key, which stays sk_test', async () => {
      const testKey = await mint(org.auth, { name: 'test target', scopes: ['costs:read'], key_type: 'sk_test' });
      const rotated = await post(`/v1/api_keys/${testKey.id}/rotate`, org.auth).expect(201);
      secrets.push(rotated.body.secret);
      expect(rotated.body.key_type).toBe('sk_test');
      expect(rotated.body.secret).toMatch(/^sk_test_/);
      await usable(rotated.body.secret).expect(200);
    });

    it('answers a sandbox principal rotating a sk_live key as for an unknown key: 404 API_KEY_NOT_FOUND', async () => {
      const session = await ownerSession();
      const liveKey = await mint(org.auth, { name: 'live target', scopes: ['costs:read'] });
      for (const [auth, headers] of [
        [org.sandboxAuth, {}],
        [session, { 'X-Workspace-Id': 'sandbox' }],
      ] as Array<[string, Record<string, string>]>) {
        const refused = await post(`/v1/api_keys/${liveKey.id}/rotate`, auth, undefined, headers);
        expect(expectError(refused, 404, 'API_KEY_NOT_FOUND').param).toBe('id');
      }
      expect(await listed(liveKey.id)).toEqual(expect.objectContaining({ revokes_at: null, status: 'active' }));
      const testKey = await mint(org.sandboxAuth, { name: 'sandbox target', scopes: ['costs:read'] });
      const rotated = await post(`/v1/api_keys/${testKey.id}/rotate`, org.sandboxAuth).expect(201);
      secrets.push(rotated.body.secret);
      expect(rotated.body.key_type).toBe('sk_test');
    });

    it('refuses revoked and expired keys with 409 API_KEY_NOT_ACTIVE', async () => {
      const revoked = await mint(org.auth, { name: 'revoked', scopes: ['costs:read'] });
      await post(`/v1/api_keys/${revoked.id}/revoke`, org.auth).expect(200);
      expect(expectError(await post(`/v1/api_keys/${revoked.id}/rotate`, org.auth), 409, 'API_KEY_NOT_ACTIVE').details).toEqual({
        status: 'revoked',
      });
      const expiring = await mint(org.auth, {
        name: 'expired',
        scopes: ['costs:read'],
        expires_at: new Date(clock.now().getTime() + HOUR),
      });
      clock.advance(HOUR);
      expect(expectError(await post(`/v1/api_keys/${expiring.id}/rotate`, org.auth), 409, 'API_KEY_NOT_ACTIVE').details).toEqual({
        status: 'expired',
      });
      const names = (await listAll()).map((row) => row.name);
      expect(names.filter((name) => name === 'revoked' || name === 'expired')).toHaveLength(2);
    });

    it('refuses a caller lacking one of the key’s scopes with 403 SCOPE_NOT_GRANTABLE and changes nothing', async () => {
      const target = await mint(org.auth, { name: 'wide', scopes: ['customers:read', 'wallets:write'] });
      const rotator = await mint(org.auth, { name: 'narrow rotator', scopes: ['api_keys:write', 'customers:read'] });
      const error = expectError(
        await post(`/v1/api_keys/${target.id}/rotate`, bearer(rotator.secret)),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      expect(error.details).toEqual({ not_grantable: ['wallets:write'] });
      expect(await listed(target.id)).toEqual(expect.objectContaining({ status: 'active', revokes_at: null }));
      expect((await listAll()).filter((row) => row.name === 'wide')).toHaveLength(1);
      const rootRotation = expectError(
        await post(`/v1/api_keys/${org.api_key.id}/rotate`, bearer(rotator.secret)),
        403,
        'SCOPE_NOT_GRANTABLE',
      );
      expect(rootRotation.details.not_grantable).toEqual(expect.arrayContaining(['wallets:write', 'api_keys:read']));
    });

    it('answers 404 API_KEY_NOT_FOUND for an unknown, foreign or malformed id', async () => {
      for (const id of [randomUUID(), other.api_key.id, 'not-a-uuid']) {
        expectError(await post(`/v1/api_keys/${id}/rotate`, org.auth), 404, 'API_KEY_NOT_FOUND');
      }
      const theirs = await listAll(other.auth);
      expect(theirs.map((row) => row.id).sort()).toEqual([other.api_key.id, other.sandbox_api_key.id].sort());
      expect(theirs.every((row) => row.status === 'active' && row.revokes_at === null)).toBe(true);
    });

    it('requires api_keys:write', async () => {
      const target = await mint(org.auth, { name: 'target', scopes: ['costs:read'] });
      const reader = await mint(org.auth, { name: 'reader', scopes: ['api_keys:read', 'costs:read'] });
      expectError(await post(`/v1/api_keys/${target.id}/rotate`, bearer(reader.secret)), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('secrets at rest', () => {
    it('never stores a plaintext secret: every column of every table is scanned', async () => {
      // Sessions are secrets too.
      const session = await ownerSession();
      secrets.push(session.slice('Bearer '.length));
      await t.http.get('/v1/permissions').set('Authorization', session).expect(200);
      expect(secrets.length).toBeGreaterThan(30);

      const dataSource = t.app.get(DataSource);
      const columns: Array<{ table_schema: string; table_name: string; column_name: string; data_type: string }> =
        await dataSource.query(
          `SELECT c.table_schema, c.table_name, c.column_name, c.data_type
             FROM information_schema.columns c
             JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
              AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY', 'USER-DEFINED'))`,
        );
      const tables = new Set(columns.map((column) => column.table_name));
      expect([...tables]).toEqual(expect.arrayContaining(['api_keys', 'sessions', 'idempotency_records', 'audit_events']));

      const needles = secrets.flatMap((secret) => [
        secret,
        secret.slice(12), // the part of the secret that is not the display prefix
        Buffer.from(secret).toString('hex'), // as bytea renders
        Buffer.from(secret).toString('base64'),
      ]);
      const hits: string[] = [];
      let scanned = 0;
      for (const { table_schema, table_name, column_name } of columns) {
        const rows: Array<{ value: string | null }> = await dataSource.query(
          `SELECT "${column_name}"::text AS value FROM "${table_schema}"."${table_name}"`,
        );
        for (const { value } of rows) {
          if (value === null) continue;
          scanned += 1;
          for (const needle of needles) if (value.includes(needle)) hits.push(`${table_name}.${column_name}`);
        }
      }
      expect(hits).toEqual([]);
      expect(scanned).toBeGreaterThan(100);

      // The scan is not vacuous: the responses that carried secrets are stored, sealed.
      const [{ count }] = await dataSource.query(
        `SELECT count(*)::int AS count FROM idempotency_records WHERE route LIKE '/v1/api_keys%'`,
      );
      expect(count).toBeGreaterThan(10);
    });
  });
});
