import { randomUUID } from 'node:crypto';
import { ManualClock } from '@app/shared-kernel';
import { eventually, expectError, expectFieldError, postCustomer } from '../support/auth-helpers';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

// The e2e project's testTimeout is not a per-project option in Jest: set it here.
jest.setTimeout(30_000);

const WORKSPACE_FIELDS = ['created_at', 'id', 'is_default', 'mode', 'name', 'object', 'settings', 'slug', 'updated_at'];

describe('Workspaces: list, create, update, select', () => {
  let t: TestApp;
  let clock: ManualClock;
  let org: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await createTestApp({ clock });
    org = await createTenant(t, { withOwner: true });
    other = await createTenant(t);
  });
  afterAll(() => t.close());

  function create(body: Record<string, unknown>, auth = org.auth) {
    return t.http.post('/v1/workspaces').set('Authorization', auth).set('Idempotency-Key', idem()).send(body);
  }

  function patch(id: string, body: Record<string, unknown>, auth = org.auth) {
    return t.http.patch(`/v1/workspaces/${id}`).set('Authorization', auth).send(body);
  }

  async function listAll(auth = org.auth): Promise<any[]> {
    const response = await t.http.get('/v1/workspaces?limit=200').set('Authorization', auth).expect(200);
    expect(response.body.pagination).toEqual({ cursor: null, has_more: false });
    return response.body.data;
  }

  describe('GET /v1/workspaces', () => {
    it('lists the organization’s live and sandbox workspaces, defaults of their mode', async () => {
      const rows = await listAll();
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(WORKSPACE_FIELDS);
      const byMode = Object.fromEntries(rows.map((row) => [row.mode, row]));
      expect(byMode.live).toEqual(
        expect.objectContaining({
          id: org.liveWorkspaceId,
          object: 'workspace',
          slug: 'live',
          is_default: true,
          settings: { approval_required_for: [] },
        }),
      );
      expect(byMode.sandbox).toEqual(
        expect.objectContaining({
          id: org.sandboxWorkspaceId,
          object: 'workspace',
          slug: 'sandbox',
          is_default: true,
          settings: { approval_required_for: [] },
        }),
      );
      const ids = rows.map((row) => row.id);
      expect(ids).not.toContain(other.liveWorkspaceId);
      expect(ids).not.toContain(other.sandboxWorkspaceId);
    });

    it('answers a live session; refuses every sandbox principal with 403 SANDBOX_PRINCIPAL_FORBIDDEN, changing nothing', async () => {
      const session = await signIn(t, org.owner!.email, org.owner!.password);
      expect((await listAll(session)).map((row) => row.id).sort()).toEqual([org.liveWorkspaceId, org.sandboxWorkspaceId].sort());
      const testKey = await createKey(
        t,
        session,
        { name: 'sandbox admin', scopes: ['workspaces:read', 'workspaces:write'] },
        { 'X-Workspace-Id': 'sandbox' },
      );
      expect(testKey.body.key_type).toBe('sk_test');
      const before = await listAll();
      const sandboxPrincipals: Array<[string, Record<string, string>]> = [
        [org.sandboxAuth, {}],
        [`Bearer ${testKey.secret}`, {}],
        [session, { 'X-Workspace-Id': 'sandbox' }],
      ];
      for (const [auth, headers] of sandboxPrincipals) {
        const listed = await t.http.get('/v1/workspaces').set('Authorization', auth).set(headers);
        expect(expectError(listed, 403, 'SANDBOX_PRINCIPAL_FORBIDDEN').details).toEqual({
          required_scope: 'workspaces:read',
          workspace_mode: 'sandbox',
        });
        expectError(
          await create({ name: 'From sandbox', slug: 'from-sandbox', mode: 'live' }, auth).set(headers),
          403,
          'SANDBOX_PRINCIPAL_FORBIDDEN',
        );
        for (const id of [org.liveWorkspaceId, org.sandboxWorkspaceId]) {
          expectError(
            await patch(id, { name: 'Hijacked', settings: { approval_required_for: [] } }, auth).set(headers),
            403,
            'SANDBOX_PRINCIPAL_FORBIDDEN',
          );
        }
      }
      expect(await listAll()).toEqual(before);
    });

    it('requires workspaces:read', async () => {
      const key = await createKey(t, org.auth, { name: 'writer', scopes: ['workspaces:write'] });
      const error = expectError(
        await t.http.get('/v1/workspaces').set('Authorization', `Bearer ${key.secret}`),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(error.details).toEqual({ required_scope: 'workspaces:read' });
    });
  });

  describe('POST /v1/workspaces', () => {
    it('creates a workspace: 201, Location, not a default, empty settings; listed first', async () => {
      clock.advance(1000);
      const response = await create({ name: '  EU live  ', slug: 'eu-live', mode: 'live' }).expect(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        object: 'workspace',
        name: 'EU live',
        slug: 'eu-live',
        mode: 'live',
        is_default: false,
        settings: { approval_required_for: [] },
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      });
      expect(response.headers.location).toBe(`/v1/workspaces/${response.body.id}`);
      const rows = await listAll();
      expect(rows[0]).toEqual(response.body);
      expect(rows).toHaveLength(3);
    });

    it('makes the new slug usable in X-Workspace-Id right away, scoping the workspace’s data', async () => {
      const created = await create({ name: 'Fresh', slug: 'fresh-live', mode: 'live' }).expect(201);
      const customer = await eventually(async () => {
        const response = await postCustomer(t, org.auth, { 'X-Workspace-Id': 'fresh-live' });
        return response.status === 201 ? response : undefined;
      }, 1000);
      expect(customer.body.workspace_id).toBe(created.body.id);
      const byId = await postCustomer(t, org.auth, { 'X-Workspace-Id': created.body.id }).expect(201);
      expect(byId.body.workspace_id).toBe(created.body.id);

      // Its customers are its own: the default live workspace does not see them, and vice versa.
      const inFresh = await t.http
        .get('/v1/customers')
        .set('Authorization', org.auth)
        .set('X-Workspace-Id', 'fresh-live')
        .expect(200);
      expect(inFresh.body.data.map((row: { id: string }) => row.id).sort()).toEqual([customer.body.id, byId.body.id].sort());
      const inDefault = await t.http.get('/v1/customers').set('Authorization', org.auth).expect(200);
      expect(inDefault.body.data.map((row: { id: string }) => row.id)).not.toContain(customer.body.id);
      expectError(
        await t.http.get(`/v1/customers/${customer.body.id}`).set('Authorization', org.auth),
        404,
        'CUSTOMER_NOT_FOUND',
      );
      await t.http
        .get(`/v1/customers/${customer.body.id}`)
        .set('Authorization', org.auth)
        .set('X-Workspace-Id', 'fresh-live')
        .expect(200);
    });

    it('keeps the mode rules on a new sandbox workspace', async () => {
      const created = await create({ name: 'QA', slug: 'qa-sandbox', mode: 'sandbox' }).expect(201);
      expect(created.body).toEqual(expect.objectContaining({ mode: 'sandbox', is_default: false }));
      await eventually(async () => {
        const response = await t.http.get('/v1/customers').set('Authorization', org.auth).set('X-Workspace-Id', 'qa-sandbox');
        return response.status === 403 ? response : undefined;
      }, 1000).then((response) => expectError(response, 403, 'WORKSPACE_MODE_MISMATCH'));
      const session = await signIn(t, org.owner!.email, org.owner!.password);
      const testKey = await createKey(t, session, { name: 'qa', scopes: ['customers:write'], key_type: 'sk_test' });
      const customer = await postCustomer(t, `Bearer ${testKey.secret}`, { 'X-Workspace-Id': 'qa-sandbox' }).expect(201);
      expect(customer.body.workspace_id).toBe(created.body.id);
      // The sandbox default stays the organization's default for sk_test keys.
      const byDefault = await postCustomer(t, `Bearer ${testKey.secret}`).expect(201);
      expect(byDefault.body.workspace_id).toBe(org.sandboxWorkspaceId);
    });

    it('refuses a slug already used in the organization with 409 ALREADY_EXISTS; other organizations may reuse it', async () => {
      await create({ name: 'Dup', slug: 'dup', mode: 'live' }).expect(201);
      const before = (await listAll()).length;
      for (const body of [
        { name: 'Dup again', slug: 'dup', mode: 'sandbox' },
        { name: 'Shadow live', slug: 'live', mode: 'live' },
        { name: 'Shadow sandbox', slug: 'sandbox', mode: 'sandbox' },
      ]) {
        const error = expectError(await create(body), 409, 'ALREADY_EXISTS');
        expect(error.param).toBe('slug');
      }
      expect((await listAll()).length).toBe(before);
      await create({ name: 'Theirs', slug: 'dup', mode: 'live' }, other.auth).expect(201);
    });

    it.each(['Upper', 'has space', '-lead', 'trail-', 'under_score', 'dot.ted', 'é', 'a'.repeat(64), randomUUID()])(
      'refuses the slug %j with 400 INVALID_FORMAT',
      async (slug) => {
        expectFieldError(await create({ name: 'Bad', slug, mode: 'live' }), 'slug', 'INVALID_FORMAT');
      },
    );

    it('accepts the longest and shortest valid slugs', async () => {
      await create({ name: 'Long', slug: `a${'-b'.repeat(31)}`, mode: 'live' }).expect(201);
      await create({ name: 'Short', slug: 'z', mode: 'sandbox' }).expect(201);
    });

    it('refuses a missing or invalid name, slug or mode, and unknown fields, with 400 VALIDATION_ERROR', async () => {
      const before = (await listAll()).length;
      expectFieldError(await create({ name: '   ', slug: 'blank-name', mode: 'live' }), 'name', 'OUT_OF_RANGE');
      expectFieldError(await create({ name: 'x'.repeat(201), slug: 'long-name', mode: 'live' }), 'name', 'OUT_OF_RANGE');
      expectFieldError(await create({ slug: 'no-name', mode: 'live' }), 'name', 'INVALID_TYPE');
      expectFieldError(await create({ name: 'No slug', mode: 'live' }), 'slug', 'INVALID_TYPE');
      expectFieldError(await create({ name: 'Staging', slug: 'staging', mode: 'staging' }), 'mode', 'INVALID_VALUE');
      expectFieldError(await create({ name: 'No mode', slug: 'no-mode' }), 'mode', 'INVALID_VALUE');
      expectFieldError(
        await create({ name: 'Default', slug: 'default', mode: 'live', is_default: true }),
        'is_default',
        'UNKNOWN_PARAMETER',
      );
      expect((await listAll()).length).toBe(before);
    });

    it('requires workspaces:write and an Idempotency-Key; a retry replays the creation', async () => {
      const reader = await createKey(t, org.auth, { name: 'reader', scopes: ['workspaces:read'] });
      const refused = await create({ name: 'Nope', slug: 'nope', mode: 'live' }, `Bearer ${reader.secret}`);
      expect(expectError(refused, 403, 'INSUFFICIENT_SCOPE').details).toEqual({ required_scope: 'workspaces:write' });
      const missing = await t.http
        .post('/v1/workspaces')
        .set('Authorization', org.auth)
        .send({ name: 'Nope', slug: 'nope', mode: 'live' });
      expectError(missing, 400, 'IDEMPOTENCY_KEY_REQUIRED');

      const key = idem();
      const body = { name: 'Once', slug: 'once', mode: 'live' };
      const first = await t.http
        .post('/v1/workspaces')
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      const again = await t.http
        .post('/v1/workspaces')
        .set('Authorization', org.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await listAll()).filter((row) => row.slug === 'once')).toHaveLength(1);
    });
  });

  describe('PATCH /v1/workspaces/{id}', () => {
    let workspace: any;

    beforeAll(async () => {
      workspace = (await create({ name: 'Patched', slug: 'patched', mode: 'live' }).expect(201)).body;
    });

    it('renames; the rest is unchanged, updated_at moves (no Idempotency-Key needed)', async () => {
      clock.advance(5000);
      const response = await patch(workspace.id, { name: '  Renamed  ' }).expect(200);
      expect(response.body).toEqual({ ...workspace, name: 'Renamed', updated_at: clock.now().toISOString() });
      workspace = response.body;
      expect((await listAll()).find((row) => row.id === workspace.id)).toEqual(workspace);
    });

    it('sets a checkpoint at once; removing one is held for a second human (409 for an API key, 202 for a human)', async () => {
      const set = await patch(workspace.id, { settings: { approval_required_for: ['wallet.adjust', 'wallet.adjust'] } }).expect(
        200,
      );
      expect(set.body).toEqual({
        ...workspace,
        settings: { approval_required_for: ['wallet.adjust'] },
        updated_at: expect.any(String),
      });
      workspace = set.body;
      expect((await listAll()).find((row) => row.id === workspace.id)).toEqual(workspace);

      // The key the control binds cannot switch it off, alone or with a rename.
      for (const body of [
        { settings: { approval_required_for: [] } },
        { name: 'Quiet', settings: { approval_required_for: [] } },
      ]) {
        const refused = expectError(await patch(workspace.id, body), 409, 'APPROVAL_REQUIRED_HUMAN');
        expect(refused.details).toEqual({ checkpoint: 'workspace.approval_settings' });
      }
      expect((await listAll()).find((row) => row.id === workspace.id)).toEqual(workspace);

      // A human's request is held, and the requester cannot approve it.
      const owner = await signIn(t, org.owner!.email, org.owner!.password);
      const held = await patch(workspace.id, { settings: { approval_required_for: [] } }, owner).expect(202);
      expect(held.body).toEqual({
        object: 'approval_request',
        status: 'pending_approval',
        approval: { id: expect.any(String), status: 'pending', checkpoint: 'workspace.approval_settings' },
      });
      const approvalId = held.body.approval.id;
      expect(held.headers.location).toBe(`/v1/approvals/${approvalId}`);
      expect((await listAll()).find((row) => row.id === workspace.id)).toEqual(workspace);
      const decide = (auth: string) =>
        t.http.post(`/v1/approvals/${approvalId}/approve`).set('Authorization', auth).set('Idempotency-Key', idem()).send({});
      expectError(await decide(owner), 403, 'SELF_APPROVAL_FORBIDDEN');
      expectError(await decide(org.auth), 403, 'HUMAN_SESSION_REQUIRED');

      // A second human (an admin the owner created) approves: the change applies atomically, in the requester's name.
      const adminEmail = `approver-${randomUUID().slice(0, 8)}@example.com`;
      await t.http
        .post('/v1/users')
        .set('Authorization', owner)
        .set('Idempotency-Key', idem())
        .send({ email: adminEmail, password: 'approver password 1', role: 'admin' })
        .expect(201);
      const admin = await signIn(t, adminEmail, 'approver password 1');
      const approved = await decide(admin).expect(200);
      expect(approved.body).toEqual(
        expect.objectContaining({
          checkpoint: 'workspace.approval_settings',
          status: 'approved',
          requested_by: { type: 'user', id: org.user_id },
          result: {
            outcome: 'succeeded',
            response: expect.objectContaining({ id: workspace.id, settings: { approval_required_for: [] } }),
          },
        }),
      );
      const cleared = (await listAll()).find((row) => row.id === workspace.id);
      expect(cleared.settings).toEqual({ approval_required_for: [] });
      expect(cleared.name).toBe('Renamed');
      workspace = cleared;

      // Every step is audited: the request, the decision, and the change in the requester's name.
      const trail = await t.http.get('/v1/audit_events?limit=200').set('Authorization', org.auth).expect(200);
      const actions = trail.body.data
        .filter((event: any) => event.resource_id === approvalId || event.resource_id === workspace.id)
        .map((event: any) => `${event.action} ${event.principal.type}`);
      expect(actions).toEqual(
        expect.arrayContaining(['approval.requested user', 'approval.approved user', 'workspace.updated user']),
      );
      const removals = trail.body.data.filter(
        (event: any) => event.action === 'workspace.updated' && event.data.removed_checkpoints?.length > 0,
      );
      expect(removals).toEqual([
        expect.objectContaining({
          resource_id: workspace.id,
          principal: { type: 'user', id: org.user_id },
          data: expect.objectContaining({ removed_checkpoints: ['wallet.adjust'], settings: { approval_required_for: [] } }),
        }),
      ]);
    });

    it('treats absent and null fields as unchanged (merge-patch)', async () => {
      await patch(workspace.id, { settings: { approval_required_for: ['wallet.adjust'] } }).expect(200);
      for (const body of [
        {},
        { name: null },
        { settings: null },
        { settings: {} },
        { settings: { approval_required_for: null } },
      ]) {
        const response = await patch(workspace.id, body).expect(200);
        expect(response.body).toEqual(
          expect.objectContaining({ name: 'Renamed', settings: { approval_required_for: ['wallet.adjust'] }, slug: 'patched' }),
        );
      }
    });

    it('updates a default workspace too, without changing its defaults', async () => {
      const response = await patch(org.sandboxWorkspaceId, { name: 'Sandbox (QA)' }).expect(200);
      expect(response.body).toEqual(
        expect.objectContaining({ name: 'Sandbox (QA)', slug: 'sandbox', mode: 'sandbox', is_default: true }),
      );
    });

    it('refuses an unknown checkpoint or a malformed settings object with 400 and changes nothing', async () => {
      const before = (await listAll()).find((row) => row.id === workspace.id);
      expectFieldError(
        await patch(workspace.id, { settings: { approval_required_for: ['wallet.adjust', 'wallet.delete'] } }),
        'settings.approval_required_for[1]',
        'INVALID_VALUE',
      );
      expectFieldError(
        await patch(workspace.id, { settings: { approval_required_for: 'wallet.adjust' } }),
        'settings.approval_required_for',
        'INVALID_TYPE',
      );
      expectFieldError(await patch(workspace.id, { settings: { colour: 'red' } }), 'settings.colour', 'UNKNOWN_PARAMETER');
      expectFieldError(await patch(workspace.id, { name: '' }), 'name', 'OUT_OF_RANGE');
      expectFieldError(await patch(workspace.id, { slug: 'renamed' }), 'slug', 'UNKNOWN_PARAMETER');
      expectFieldError(await patch(workspace.id, { mode: 'sandbox' }), 'mode', 'UNKNOWN_PARAMETER');
      expect((await listAll()).find((row) => row.id === workspace.id)).toEqual(before);
    });

    it('answers 404 WORKSPACE_NOT_FOUND for another organization’s, an unknown or a malformed id', async () => {
      const theirs = (await listAll(other.auth)).find((row) => row.id === other.liveWorkspaceId);
      for (const id of [other.liveWorkspaceId, other.sandboxWorkspaceId, randomUUID(), 'live', 'not-a-uuid']) {
        const error = expectError(
          await patch(id, { name: 'Hijacked', settings: { approval_required_for: ['wallet.adjust'] } }),
          404,
          'WORKSPACE_NOT_FOUND',
        );
        expect(error.param).toBe('id');
      }
      expect((await listAll(other.auth)).find((row) => row.id === other.liveWorkspaceId)).toEqual(theirs);
    });

    it('requires workspaces:write', async () => {
      const reader = await createKey(t, org.auth, { name: 'reader', scopes: ['workspaces:read'] });
      const error = expectError(
        await patch(workspace.id, { name: 'Nope' }, `Bearer ${reader.secret}`),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(error.details).toEqual({ required_scope: 'workspaces:write' });
    });
  });
});
