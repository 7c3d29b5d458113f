import request from 'supertest';
import { DataSource } from 'typeorm';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { ISO, expectError } from '../support/expectations';

// scrypt hashing and real PostgreSQL: the default 5 s is too tight on a busy 2-core machine.
jest.setTimeout(30_000);

interface Mutation {
  response: request.Response;
  action: string;
  resourceType: string;
  resourceId: string;
  principal: { type: string; id: string | null };
  workspaceId: string | null;
}

/** The audit trail (GET /v1/audit_events): who did what, where and when; refusals leave no trace. */
describe('Audit events', () => {
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let stranger: TestTenant;
  const mutations: Mutation[] = [];

  async function all(auth: string, query = ''): Promise<any[]> {
    const events: any[] = [];
    let cursor: string | null = null;
    do {
      const separator: string = query ? '&' : '';
      const page: request.Response = await t.http
        .get(`/v1/audit_events?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`)
        .set('Authorization', auth)
        .expect(200);
      events.push(...page.body.data);
      cursor = page.body.pagination.cursor;
      expect(page.body.pagination.has_more).toBe(cursor !== null);
    } while (cursor);
    return events;
  }

  /** Events a request caused (a customer's primary wallet is opened, and audited, by the request that creates it). */
  async function requestEventCount(): Promise<number> {
    const [{ count }] = await db.query(
      'SELECT count(*)::int AS count FROM audit_events WHERE organization_id = $1 AND request_id IS NOT NULL',
      [tenant.organization_id],
    );
    return count;
  }

  async function eventsOfRequest(response: request.Response): Promise<unknown[]> {
    return db.query('SELECT action FROM audit_events WHERE request_id = $1', [response.headers['request-id']]);
  }

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    stranger = await createTenant(t);
    const key = { type: 'api_key', id: tenant.api_key.id };

    const customer = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Audited', currency: 'EUR', external_id: 'audited' })
      .expect(201);
    mutations.push({
      response: customer,
      action: 'customer.created',
      resourceType: 'customer',
      resourceId: customer.body.id,
      principal: key,
      workspaceId: tenant.liveWorkspaceId,
    });

    const user = await t.http
      .post('/v1/users')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ email: 'audited-user@example.com', password: 'audited password 1', role: 'developer' })
      .expect(201);
    mutations.push({
      response: user,
      action: 'user.created',
      resourceType: 'user',
      resourceId: user.body.id,
      principal: key,
      workspaceId: tenant.liveWorkspaceId,
    });

    const apiKey = await t.http
      .post('/v1/api_keys')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'audited key', scopes: ['customers:read'] })
      .expect(201);
    mutations.push({
      response: apiKey,
      action: 'api_key.created',
      resourceType: 'api_key',
      resourceId: apiKey.body.id,
      principal: key,
      workspaceId: tenant.liveWorkspaceId,
    });

    const workspace = await t.http
      .patch(`/v1/workspaces/${tenant.sandboxWorkspaceId}`)
      .set('Authorization', tenant.auth)
      .send({ name: 'Sandbox (renamed)' })
      .expect(200);
    mutations.push({
      response: workspace,
      action: 'workspace.updated',
      resourceType: 'workspace',
      resourceId: tenant.sandboxWorkspaceId,
      principal: key,
      workspaceId: tenant.liveWorkspaceId,
    });

    const session = await t.http
      .post('/v1/sessions')
      .send({ ...tenant.owner!, organization_id: tenant.organization_id })
      .expect(201);
    mutations.push({
      response: session,
      action: 'session.created',
      resourceType: 'session',
      resourceId: session.body.id,
      principal: { type: 'user', id: tenant.user_id },
      workspaceId: null,
    });

    const sandboxCustomer = await t.http
      .post('/v1/customers')
      .set('Authorization', `Bearer ${session.body.token}`)
      .set('X-Workspace-Id', 'sandbox')
      .set('Idempotency-Key', idem())
      .send({ name: 'Audited in sandbox', currency: 'USD' })
      .expect(201);
    mutations.push({
      response: sandboxCustomer,
      action: 'customer.created',
      resourceType: 'customer',
      resourceId: sandboxCustomer.body.id,
      principal: { type: 'user', id: tenant.user_id },
      workspaceId: tenant.sandboxWorkspaceId,
    });

    const ended = await t.http.delete('/v1/sessions/current').set('Authorization', `Bearer ${session.body.token}`).expect(204);
    mutations.push({
      response: ended,
      action: 'session.ended',
      resourceType: 'session',
      resourceId: session.body.id,
      principal: { type: 'user', id: tenant.user_id },
      workspaceId: tenant.liveWorkspaceId,
    });

    // Each customer's primary wallet is opened by the same request, on the same principal's behalf.
    for (const [created, principal, workspaceId] of [
      [customer, key, tenant.liveWorkspaceId],
      [sandboxCustomer, { type: 'user', id: tenant.user_id }, tenant.sandboxWorkspaceId],
    ] as const) {
      mutations.push({
        response: created,
        action: 'wallet.created',
        resourceType: 'wallet',
        resourceId: created.body.primary_wallet_id,
        principal,
        workspaceId,
      });
    }

    // The other organization is busy too.
    await t.http
      .post('/v1/customers')
      .set('Authorization', stranger.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Not yours', currency: 'EUR', external_id: 'audited' })
      .expect(201);
  });
  afterAll(() => t.close());

  it('records every mutation with its action, resource, principal, workspace, request id and time', async () => {
    const events = await all(tenant.auth);
    for (const mutation of mutations) {
      const matching = events.filter((event) => event.action === mutation.action && event.resource_id === mutation.resourceId);
      expect({ action: mutation.action, matching }).toEqual({
        action: mutation.action,
        matching: [
          {
            id: expect.any(String),
            object: 'audit_event',
            action: mutation.action,
            resource_type: mutation.resourceType,
            resource_id: mutation.resourceId,
            principal: mutation.principal,
            workspace_id: mutation.workspaceId,
            request_id: mutation.response.headers['request-id'],
            data: expect.any(Object),
            occurred_at: expect.stringMatching(ISO),
          },
        ],
      });
    }
    const bootstrapped = events.filter((event) => event.action === 'organization.bootstrapped');
    expect(bootstrapped).toEqual([
      expect.objectContaining({
        resource_type: 'organization',
        resource_id: tenant.organization_id,
        principal: { type: 'system', id: null },
        workspace_id: null,
        data: { root_key_id: tenant.api_key.id, sandbox_root_key_id: tenant.sandbox_api_key.id },
      }),
    ]);
    // Every event caused by a request is one of the mutations above, recorded once.
    const caused = events.filter((event) => event.request_id !== null).map((event) => event.request_id);
    expect(caused.sort()).toEqual(mutations.map((mutation) => mutation.response.headers['request-id']).sort());
    const uncaused = events.filter((event) => event.request_id === null);
    expect(uncaused.every((event) => event.principal.type === 'system')).toBe(true);
  });

  it('never records a secret or a password in event data', async () => {
    const events = await all(tenant.auth);
    const text = JSON.stringify(events);
    expect(text).not.toContain('audited password 1');
    expect(text).not.toContain(mutations[2].response.body.secret);
    expect(text).not.toContain(tenant.rootKey);
    expect(text).not.toContain(tenant.owner!.password);
  });

  it('lists newest first with keyset cursors', async () => {
    const everything = await all(tenant.auth);
    const paged = await all(tenant.auth, 'limit=2');
    expect(paged).toEqual(everything);
    const times = everything.map((event) => event.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(everything.map((event) => event.id)).size).toBe(everything.length);
  });

  it('filters by resource_type, resource_id and principal_id', async () => {
    const customers = await all(tenant.auth, 'resource_type=customer');
    expect(customers.map((event) => event.resource_id).sort()).toEqual(
      mutations
        .filter((mutation) => mutation.resourceType === 'customer')
        .map((mutation) => mutation.resourceId)
        .sort(),
    );
    const sessionEvents = await all(tenant.auth, `resource_id=${mutations[4].resourceId}`);
    expect(sessionEvents.map((event) => event.action)).toEqual(['session.ended', 'session.created']);
    const byUser = await all(tenant.auth, `principal_id=${tenant.user_id}`);
    expect(byUser.map((event) => event.action)).toEqual([
      'session.ended',
      'wallet.created',
      'customer.created',
      'session.created',
    ]);
    expect(byUser.every((event) => event.principal.id === tenant.user_id)).toBe(true);
    const combined = await all(tenant.auth, `resource_type=customer&principal_id=${tenant.api_key.id}`);
    expect(combined.map((event) => event.resource_id)).toEqual([mutations[0].resourceId]);
    expect(await all(tenant.auth, 'resource_type=nothing')).toEqual([]);
  });

  it('filters by occurred_after (inclusive) and occurred_before (exclusive); an invalid date is 400', async () => {
    const everything = await all(tenant.auth);
    const oldest = everything[everything.length - 1];
    const newest = everything[0];
    const before = await all(tenant.auth, `occurred_before=${encodeURIComponent(newest.occurred_at)}`);
    expect(before.map((event) => event.id)).not.toContain(newest.id);
    expect(before).toEqual(everything.filter((event) => event.occurred_at < newest.occurred_at));
    const after = await all(tenant.auth, `occurred_after=${encodeURIComponent(newest.occurred_at)}`);
    expect(after).toEqual(everything.filter((event) => event.occurred_at >= newest.occurred_at));
    expect(after.map((event) => event.id)).toContain(newest.id);
    const window = await all(
      tenant.auth,
      `occurred_after=${encodeURIComponent(oldest.occurred_at)}&occurred_before=${encodeURIComponent(
        new Date(new Date(newest.occurred_at).getTime() + 1).toISOString(),
      )}`,
    );
    expect(window).toEqual(everything);
    expect(await all(tenant.auth, 'occurred_after=2999-01-01T00:00:00Z')).toEqual([]);

    for (const query of ['occurred_after=yesterday', 'occurred_before=2026-13-45', 'principal_id=not-a-uuid']) {
      const refused = await t.http.get(`/v1/audit_events?${query}`).set('Authorization', tenant.auth);
      expectError(refused, 400, 'invalid_request_error', 'VALIDATION_ERROR');
      expect(refused.body.error.param).toBe(query.split('=')[0]);
    }
  });

  it('binds cursors to the filters: reused under other filters → 400 INVALID_CURSOR', async () => {
    const first = await t.http
      .get('/v1/audit_events?limit=1&resource_type=customer')
      .set('Authorization', tenant.auth)
      .expect(200);
    const cursor = encodeURIComponent(first.body.pagination.cursor);
    await t.http
      .get(`/v1/audit_events?limit=1&resource_type=customer&cursor=${cursor}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    for (const query of [`limit=1&cursor=${cursor}`, `limit=1&resource_type=user&cursor=${cursor}`]) {
      const refused = await t.http.get(`/v1/audit_events?${query}`).set('Authorization', tenant.auth);
      expectError(refused, 400, 'invalid_request_error', 'INVALID_CURSOR');
    }
    const tampered = await t.http
      .get(`/v1/audit_events?limit=1&resource_type=customer&cursor=${cursor.slice(0, -3)}AAA`)
      .set('Authorization', tenant.auth);
    expectError(tampered, 400, 'invalid_request_error', 'INVALID_CURSOR');
  });

  it('shows another organization none of them, even when asked by id', async () => {
    const theirs = await all(stranger.auth);
    const ours = new Set(mutations.map((mutation) => mutation.resourceId));
    expect(theirs.some((event) => ours.has(event.resource_id))).toBe(false);
    expect(theirs.map((event) => event.action)).toEqual(
      expect.arrayContaining(['customer.created', 'organization.bootstrapped']),
    );
    expect(theirs.every((event) => event.principal.id === null || event.principal.id === stranger.api_key.id)).toBe(true);
    expect(await all(stranger.auth, `resource_id=${mutations[0].resourceId}`)).toEqual([]);
    expect(await all(stranger.auth, `principal_id=${tenant.api_key.id}`)).toEqual([]);
  });

  it('records nothing for a refused mutation or a replay', async () => {
    const before = await requestEventCount();
    const duplicate = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Again', currency: 'EUR', external_id: 'audited' });
    expectError(duplicate, 409, 'conflict_error', 'ALREADY_EXISTS');
    const badCurrency = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Bad', currency: 'eur' });
    expectError(badCurrency, 400, 'invalid_request_error', 'VALIDATION_ERROR');
    const duplicateUser = await t.http
      .post('/v1/users')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ email: 'audited-user@example.com', password: 'audited password 1', role: 'viewer' });
    expectError(duplicateUser, 409, 'conflict_error', 'ALREADY_EXISTS');
    const reader = await createKey(t, tenant.auth, { name: 'reader', scopes: ['customers:read'] });
    const afterKey = await requestEventCount();
    expect(afterKey).toBe(before + 1);
    const forbidden = await t.http
      .post('/v1/customers')
      .set('Authorization', `Bearer ${reader.secret}`)
      .set('Idempotency-Key', idem())
      .send({ name: 'Forbidden', currency: 'EUR' });
    expectError(forbidden, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
    const wrongPassword = await t.http
      .post('/v1/sessions')
      .send({ email: tenant.owner!.email, password: 'not the password', organization_id: tenant.organization_id });
    expectError(wrongPassword, 401, 'authentication_error', 'INVALID_CREDENTIALS');
    const notASession = await t.http.delete('/v1/sessions/current').set('Authorization', tenant.auth);
    expectError(notASession, 400, 'invalid_request_error', 'NOT_A_SESSION');
    for (const refused of [duplicate, badCurrency, duplicateUser, forbidden, wrongPassword, notASession]) {
      expect(await eventsOfRequest(refused)).toEqual([]);
    }
    expect(await requestEventCount()).toBe(afterKey);

    const key = idem();
    const body = { name: 'Replayed', currency: 'EUR' };
    const created = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', key)
      .send(body)
      .expect(201);
    const replayed = await t.http.post('/v1/customers').set('Authorization', tenant.auth).set('Idempotency-Key', key).send(body);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(await eventsOfRequest(replayed)).toEqual([]);
    // One request, two mutations: the customer and its primary wallet, opened in its transaction.
    expect(await requestEventCount()).toBe(afterKey + 2);
    expect(await eventsOfRequest(created)).toEqual(
      expect.arrayContaining([{ action: 'customer.created' }, { action: 'wallet.created' }]),
    );
    const events = await all(tenant.auth, `resource_id=${created.body.id}`);
    expect(events).toHaveLength(1);
    expect(events[0].request_id).toBe(created.headers['request-id']);
  });

  it('requires audit_events:read; a viewer may read the trail', async () => {
    const noAudit = await createKey(t, tenant.auth, { name: 'no audit', scopes: ['customers:read'] });
    const refused = await t.http.get('/v1/audit_events').set('Authorization', `Bearer ${noAudit.secret}`);
    expectError(refused, 403, 'permission_error', 'INSUFFICIENT_SCOPE');
    expect(refused.body.error.details).toEqual({ required_scope: 'audit_events:read' });

    await t.http
      .post('/v1/users')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ email: 'audit-viewer@example.com', password: 'viewer password 12', role: 'viewer' })
      .expect(201);
    const viewer = await signIn(t, 'audit-viewer@example.com', 'viewer password 12');
    const listed = await t.http.get('/v1/audit_events?resource_type=user').set('Authorization', viewer).expect(200);
    expect(listed.body.data.map((event: { action: string }) => event.action)).toEqual(['user.created', 'user.created']);
  });
});
