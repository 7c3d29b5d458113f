import Big from 'big.js';
import { DataSource } from 'typeorm';
import { createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { ISO, UUID, expectError } from '../support/expectations';

// scrypt hashing and real PostgreSQL: the default 5 s is too tight on a busy 2-core machine.
jest.setTimeout(30_000);

/** A wallet as the API shows it, with its whole ledger (newest first). */
interface WalletState {
  wallet: Record<string, any>;
  transactions: Array<Record<string, any>>;
}

/**
 * Human approvals of a checkpointed action (contract §3, "Approvals"), driven through the real
 * checkpoint, the wallet adjustment: held (202) where the workspace opted in, applied (200)
 * elsewhere, and applied once, in the requester's name, when a second human approves.
 */
describe('Approvals', () => {
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let owner: string;
  let admin: string;
  let adminId: string;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    owner = await signIn(t, tenant.owner!.email, tenant.owner!.password);
    // Approvers are created by a human owner (an API key may not: they are the second pair of eyes).
    const created = await t.http
      .post('/v1/users')
      .set('Authorization', owner)
      .set('Idempotency-Key', idem())
      .send({ email: 'approver@example.com', password: 'approver password 1', role: 'admin' })
      .expect(201);
    adminId = created.body.id;
    admin = await signIn(t, 'approver@example.com', 'approver password 1');

    const patched = await t.http
      .patch(`/v1/workspaces/${tenant.liveWorkspaceId}`)
      .set('Authorization', tenant.auth)
      .send({ settings: { approval_required_for: ['wallet.adjust'] } })
      .expect(200);
    expect(patched.body.settings).toEqual({ approval_required_for: ['wallet.adjust'] });
  });
  afterAll(() => t.close());

  function adjust(
    auth: string,
    walletId: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    key = idem(),
  ) {
    return t.http
      .post(`/v1/wallets/${walletId}/adjust`)
      .set('Authorization', auth)
      .set('Idempotency-Key', key)
      .set(headers)
      .send(body)
      .then((response) => response);
  }

  function decide(auth: string, id: string, verb: 'approve' | 'reject', body: Record<string, unknown> = {}, key = idem()) {
    return t.http
      .post(`/v1/approvals/${id}/${verb}`)
      .set('Authorization', auth)
      .set('Idempotency-Key', key)
      .send(body)
      .then((response) => response);
  }

  /**
   * A new customer's primary wallet (opened with it), credited with `funds` unless zero.
   * Credits are not a checkpoint, so the API key funds it even where adjustments are held.
   */
  async function fundedWallet(auth = tenant.auth, funds = '100.00', headers: Record<string, string> = {}): Promise<string> {
    const customer = await t.http
      .post('/v1/customers')
      .set('Authorization', auth)
      .set('Idempotency-Key', idem())
      .set(headers)
      .send({ name: 'Approval GmbH', currency: 'EUR' })
      .expect(201);
    const walletId: string = customer.body.primary_wallet_id;
    if (funds !== '0') {
      await t.http
        .post(`/v1/wallets/${walletId}/credit`)
        .set('Authorization', auth)
        .set('Idempotency-Key', idem())
        .set(headers)
        .send({ amount: funds })
        .expect(200);
    }
    return walletId;
  }

  async function walletState(walletId: string, auth = tenant.auth, headers: Record<string, string> = {}): Promise<WalletState> {
    const wallet = await t.http.get(`/v1/wallets/${walletId}`).set('Authorization', auth).set(headers).expect(200);
    const lines = await t.http
      .get(`/v1/wallets/${walletId}/transactions?limit=200`)
      .set('Authorization', auth)
      .set(headers)
      .expect(200);
    expect(lines.body.pagination.has_more).toBe(false);
    return { wallet: wallet.body, transactions: lines.body.data };
  }

  /**
   * The ledger moved by exactly one adjustment line of `amount` on top of `before`, and the
   * cash balance with it; returns that line.
   */
  async function expectAppliedOnce(
    walletId: string,
    before: WalletState,
    amount: string,
    createdBy: { type: string; id: string | null },
    auth = tenant.auth,
    headers: Record<string, string> = {},
  ): Promise<Record<string, any>> {
    const after = await walletState(walletId, auth, headers);
    expect(after.transactions).toHaveLength(before.transactions.length + 1);
    expect(after.transactions.slice(1)).toEqual(before.transactions);
    const cash = new Big(before.wallet.cash_balance).plus(amount).toFixed(2);
    const [line] = after.transactions;
    expect(line).toEqual(
      expect.objectContaining({
        object: 'wallet_transaction',
        wallet_id: walletId,
        type: 'adjustment',
        source: 'MANUAL',
        amount,
        cash_amount: amount,
        promotional_amount: '0.00',
        ending_cash_balance: cash,
        created_by: createdBy,
      }),
    );
    expect(after.wallet.cash_balance).toBe(cash);
    return line;
  }

  async function approvalRows(): Promise<number> {
    const [{ count }] = await db.query('SELECT count(*)::int AS count FROM approval_requests');
    return count;
  }

  async function hold(walletId: string, amount: string, auth = owner): Promise<string> {
    const response = await adjust(auth, walletId, { amount });
    expect(response.status).toBe(202);
    return response.body.approval.id;
  }

  /** What the approval shows as `request`: the held adjustment, as the executor will re-apply it. */
  function heldRequest(walletId: string, amount: string, extra: Record<string, unknown> = {}) {
    return { wallet_id: walletId, amount, source: null, currency: null, reason: null, reference: null, ...extra };
  }

  it('refuses to opt in to an unknown checkpoint', async () => {
    const response = await t.http
      .patch(`/v1/workspaces/${tenant.liveWorkspaceId}`)
      .set('Authorization', tenant.auth)
      .send({ settings: { approval_required_for: ['wallet.delete'] } });
    expectError(response, 400, 'invalid_request_error', 'VALIDATION_ERROR');
    expect(response.body.error.errors).toEqual([
      expect.objectContaining({ param: 'settings.approval_required_for[0]', code: 'INVALID_VALUE' }),
    ]);
    const workspaces = await t.http.get('/v1/workspaces').set('Authorization', tenant.auth).expect(200);
    const live = workspaces.body.data.find((workspace: { id: string }) => workspace.id === tenant.liveWorkspaceId);
    expect(live.settings).toEqual({ approval_required_for: ['wallet.adjust'] });
  });

  it('refuses an API-key caller where approval is required: 409 APPROVAL_REQUIRED_HUMAN, nothing held or applied', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const rows = await approvalRows();
    for (const amount of ['10.00', '-10.00']) {
      const response = await adjust(tenant.auth, walletId, { amount });
      expectError(response, 409, 'conflict_error', 'APPROVAL_REQUIRED_HUMAN');
      expect(response.body.error.details).toEqual({ checkpoint: 'wallet.adjust' });
    }
    expect(await approvalRows()).toBe(rows);
    expect(await walletState(walletId)).toEqual(before);
  });

  it('holds a human request: 202 approval_request with Location, nothing applied, pending when read', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const key = idem();
    const body = { amount: '25.00', reason: 'Goodwill' };
    const response = await adjust(owner, walletId, body, {}, key);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      object: 'approval_request',
      status: 'pending_approval',
      approval: { id: expect.stringMatching(UUID), status: 'pending', checkpoint: 'wallet.adjust' },
    });
    const id = response.body.approval.id;
    expect(response.headers.location).toBe(`/v1/approvals/${id}`);
    expect(await walletState(walletId)).toEqual(before);

    // A retry replays the 202 and holds nothing more.
    const rows = await approvalRows();
    const replay = await adjust(owner, walletId, body, {}, key);
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(response.text);
    expect(replay.headers.location).toBe(response.headers.location);
    expect(await approvalRows()).toBe(rows);
    expect(await walletState(walletId)).toEqual(before);

    for (const reader of [owner, admin, tenant.auth]) {
      const got = await t.http.get(response.headers.location).set('Authorization', reader).expect(200);
      expect(got.body).toEqual({
        id,
        object: 'approval',
        checkpoint: 'wallet.adjust',
        status: 'pending',
        request: heldRequest(walletId, '25.00', { reason: 'Goodwill' }),
        requested_by: { type: 'user', id: tenant.user_id },
        decided_by: null,
        decided_at: null,
        decision_reason: null,
        result: null,
        created_at: expect.stringMatching(ISO),
      });
    }
  });

  it('lets neither the requester nor an API key decide: 403 SELF_APPROVAL_FORBIDDEN / HUMAN_SESSION_REQUIRED', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const id = await hold(walletId, '26.00');
    const self = await decide(owner, id, 'approve');
    expectError(self, 403, 'permission_error', 'SELF_APPROVAL_FORBIDDEN');
    const selfReject = await decide(owner, id, 'reject');
    expectError(selfReject, 403, 'permission_error', 'SELF_APPROVAL_FORBIDDEN');
    const byKey = await decide(tenant.auth, id, 'approve');
    expectError(byKey, 403, 'permission_error', 'HUMAN_SESSION_REQUIRED');

    await t.http
      .post('/v1/users')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ email: 'dev@example.com', password: 'developer password 1', role: 'developer' })
      .expect(201);
    const developer = await signIn(t, 'dev@example.com', 'developer password 1');
    const byDeveloper = await decide(developer, id, 'approve');
    expectError(byDeveloper, 403, 'permission_error', 'INSUFFICIENT_SCOPE');

    const got = await t.http.get(`/v1/approvals/${id}`).set('Authorization', owner).expect(200);
    expect(got.body.status).toBe('pending');
    expect(got.body.result).toBeNull();
    expect(await walletState(walletId)).toEqual(before);
  });

  it('applies the held request exactly once when a second human approves', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const id = await hold(walletId, '30.00');
    const key = idem();
    const approved = await decide(admin, id, 'approve', { reason: 'Confirmed with finance.' }, key);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      id,
      object: 'approval',
      checkpoint: 'wallet.adjust',
      status: 'approved',
      request: heldRequest(walletId, '30.00'),
      requested_by: { type: 'user', id: tenant.user_id },
      decided_by: { type: 'user', id: adminId },
      decided_at: expect.stringMatching(ISO),
      decision_reason: 'Confirmed with finance.',
      result: { outcome: 'succeeded', response: expect.objectContaining({ object: 'wallet_transaction' }) },
      created_at: expect.stringMatching(ISO),
    });
    // The requester's authority applies (created_by); the approver's is recorded (decided_by).
    const line = await expectAppliedOnce(walletId, before, '30.00', { type: 'user', id: tenant.user_id });
    expect(approved.body.result.response).toEqual(line);
    expect(line.id).toMatch(UUID);
    expect(line.ending_cash_balance).toBe('130.00');

    const replay = await decide(admin, id, 'approve', { reason: 'Confirmed with finance.' }, key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(approved.text);

    const again = await decide(admin, id, 'approve');
    expectError(again, 409, 'conflict_error', 'INVALID_STATUS_TRANSITION');
    expect(again.body.error.details).toEqual({ from: 'approved', to: 'approved', allowed: [] });
    const rejectAfter = await decide(admin, id, 'reject');
    expectError(rejectAfter, 409, 'conflict_error', 'INVALID_STATUS_TRANSITION');
    expect(rejectAfter.body.error.details).toEqual({ from: 'approved', to: 'rejected', allowed: [] });

    // Still exactly one adjustment after the replay and the refused decisions.
    await expectAppliedOnce(walletId, before, '30.00', { type: 'user', id: tenant.user_id });
    const got = await t.http.get(`/v1/approvals/${id}`).set('Authorization', owner).expect(200);
    expect(got.body).toEqual(approved.body);
  });

  it('applies once when two approvers race', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const id = await hold(walletId, '31.00');
    await t.http
      .post('/v1/users')
      .set('Authorization', owner)
      .set('Idempotency-Key', idem())
      .send({ email: 'second-approver@example.com', password: 'approver password 2', role: 'owner' })
      .expect(201);
    const second = await signIn(t, 'second-approver@example.com', 'approver password 2');
    const responses = await Promise.all([decide(admin, id, 'approve'), decide(second, id, 'approve')]);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409]);
    const loser = responses.find((response) => response.status === 409)!;
    expect(loser.body.error.code).toBe('INVALID_STATUS_TRANSITION');
    const winner = responses.find((response) => response.status === 200)!;
    const line = await expectAppliedOnce(walletId, before, '31.00', { type: 'user', id: tenant.user_id });
    expect(winner.body.result).toEqual({ outcome: 'succeeded', response: line });
  });

  it('rejects: status rejected, nothing applied, and no later approval', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const id = await hold(walletId, '40.00');
    const rejected = await decide(admin, id, 'reject', { reason: 'Not agreed.' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual(
      expect.objectContaining({
        id,
        status: 'rejected',
        decided_by: { type: 'user', id: adminId },
        decided_at: expect.stringMatching(ISO),
        decision_reason: 'Not agreed.',
        result: null,
      }),
    );
    const later = await decide(admin, id, 'approve');
    expectError(later, 409, 'conflict_error', 'INVALID_STATUS_TRANSITION');
    expect(later.body.error.details).toEqual({ from: 'rejected', to: 'approved', allowed: [] });
    expect(await walletState(walletId)).toEqual(before);
  });

  it('records a failed execution: status failed with the error, no effect, the decision kept', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    // Held while the wallet holds 100.00; only the approval tries to apply it.
    const id = await hold(walletId, '-150.00');
    const failed = await decide(admin, id, 'approve');
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual(
      expect.objectContaining({
        id,
        status: 'failed',
        decided_by: { type: 'user', id: adminId },
        result: {
          outcome: 'failed',
          error: {
            code: 'INSUFFICIENT_FUNDS',
            message: expect.any(String),
            details: { requested: '150.00', spendable: '100.00', currency: 'EUR' },
          },
        },
      }),
    );
    // The executor's savepoint rolled back; the approval row committed with the failure.
    expect(await walletState(walletId)).toEqual(before);
    const [row] = await db.query('SELECT status, result FROM approval_requests WHERE id = $1', [id]);
    expect(row).toEqual({ status: 'failed', result: failed.body.result });
    const again = await decide(admin, id, 'approve');
    expectError(again, 409, 'conflict_error', 'INVALID_STATUS_TRANSITION');
    expect(again.body.error.details.from).toBe('failed');
    expect(await walletState(walletId)).toEqual(before);
  });

  it("answers 404 APPROVAL_NOT_FOUND for another organization's or another workspace's approval", async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const id = await hold(walletId, '50.00');
    const other = await createTenant(t, { withOwner: true });
    const stranger = await signIn(t, other.owner!.email, other.owner!.password);
    expectError(
      await t.http.get(`/v1/approvals/${id}`).set('Authorization', stranger),
      404,
      'invalid_request_error',
      'APPROVAL_NOT_FOUND',
    );
    expectError(await decide(stranger, id, 'approve'), 404, 'invalid_request_error', 'APPROVAL_NOT_FOUND');
    expectError(await decide(stranger, id, 'reject'), 404, 'invalid_request_error', 'APPROVAL_NOT_FOUND');
    // Even an API key of the other organization learns nothing more than "not found".
    expectError(await decide(other.auth, id, 'approve'), 404, 'invalid_request_error', 'APPROVAL_NOT_FOUND');

    const sandboxApprover = t.http
      .get(`/v1/approvals/${id}`)
      .set('Authorization', admin)
      .set('X-Workspace-Id', tenant.sandboxWorkspaceId);
    expectError(await sandboxApprover, 404, 'invalid_request_error', 'APPROVAL_NOT_FOUND');
    const sandboxApprove = await t.http
      .post(`/v1/approvals/${id}/approve`)
      .set('Authorization', admin)
      .set('X-Workspace-Id', 'sandbox')
      .set('Idempotency-Key', idem())
      .send({});
    expectError(sandboxApprove, 404, 'invalid_request_error', 'APPROVAL_NOT_FOUND');
    for (const unknown of ['0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d', 'not-a-uuid']) {
      expectError(
        await t.http.get(`/v1/approvals/${unknown}`).set('Authorization', admin),
        404,
        'invalid_request_error',
        'APPROVAL_NOT_FOUND',
      );
    }

    const got = await t.http.get(`/v1/approvals/${id}`).set('Authorization', admin).expect(200);
    expect(got.body.status).toBe('pending');
    expect(await walletState(walletId)).toEqual(before);
  });

  it('applies directly where the workspace does not require approval (200)', async () => {
    const other = await createTenant(t);
    const otherWallet = await fundedWallet(other.auth);
    const otherBefore = await walletState(otherWallet, other.auth);
    const rows = await approvalRows();
    const direct = await adjust(other.auth, otherWallet, { amount: '60.00' });
    expect(direct.status).toBe(200);
    expect(direct.headers.location).toBeUndefined();
    const line = await expectAppliedOnce(
      otherWallet,
      otherBefore,
      '60.00',
      { type: 'api_key', id: other.api_key.id },
      other.auth,
    );
    expect(direct.body).toEqual(line);

    // The same organization's sandbox workspace did not opt in: a human is not held there either.
    const sandbox = { 'X-Workspace-Id': 'sandbox' };
    const sandboxWallet = await fundedWallet(owner, '100.00', sandbox);
    const sandboxBefore = await walletState(sandboxWallet, owner, sandbox);
    const applied = await adjust(owner, sandboxWallet, { amount: '-61.00' }, sandbox);
    expect(applied.status).toBe(200);
    const sandboxLine = await expectAppliedOnce(
      sandboxWallet,
      sandboxBefore,
      '-61.00',
      { type: 'user', id: tenant.user_id },
      owner,
      sandbox,
    );
    expect(applied.body).toEqual(sandboxLine);
    expect(await approvalRows()).toBe(rows);

    // And a refusal on the direct path leaves nothing behind.
    const afterDirect = await walletState(otherWallet, other.auth);
    const refused = await adjust(other.auth, otherWallet, { amount: '-1000.00' });
    expectError(refused, 422, 'business_rule_error', 'INSUFFICIENT_FUNDS');
    expect(await walletState(otherWallet, other.auth)).toEqual(afterDirect);
    expect(await approvalRows()).toBe(rows);
  });

  it('stops holding only once a second human approved the opt-out: the key it binds cannot switch it off', async () => {
    const walletId = await fundedWallet();
    const before = await walletState(walletId);
    const optOut = (auth: string) =>
      t.http
        .patch(`/v1/workspaces/${tenant.liveWorkspaceId}`)
        .set('Authorization', auth)
        .send({ settings: { approval_required_for: [] } });
    const byKey = await optOut(tenant.auth);
    expectError(byKey, 409, 'conflict_error', 'APPROVAL_REQUIRED_HUMAN');
    expect(byKey.body.error.details).toEqual({ checkpoint: 'workspace.approval_settings' });
    expectError(await adjust(tenant.auth, walletId, { amount: '70.00' }), 409, 'conflict_error', 'APPROVAL_REQUIRED_HUMAN');

    const held = await optOut(owner).expect(202);
    const optOutId = held.body.approval.id;
    // Still held while pending: the opt-out has not applied.
    expectError(await adjust(tenant.auth, walletId, { amount: '70.00' }), 409, 'conflict_error', 'APPROVAL_REQUIRED_HUMAN');
    expect((await decide(admin, optOutId, 'approve')).status).toBe(200);
    const rows = await approvalRows();
    try {
      const direct = await adjust(tenant.auth, walletId, { amount: '70.00' });
      expect(direct.status).toBe(200);
      const line = await expectAppliedOnce(walletId, before, '70.00', { type: 'api_key', id: tenant.api_key.id });
      expect(direct.body).toEqual(line);
      expect(await approvalRows()).toBe(rows);
    } finally {
      // Opting back in applies at once, for a key too: it only tightens the control.
      await t.http
        .patch(`/v1/workspaces/${tenant.liveWorkspaceId}`)
        .set('Authorization', tenant.auth)
        .send({ settings: { approval_required_for: ['wallet.adjust'] } })
        .expect(200);
    }
  });

  it('keeps approvers a human owner’s choice: an API key or an admin cannot create one (403), a developer they may', async () => {
    const users = async () =>
      (await db.query('SELECT count(*)::int AS count FROM users WHERE organization_id = $1', [tenant.organization_id]))[0].count;
    const count = await users();
    const create = (auth: string, role: string) =>
      t.http
        .post('/v1/users')
        .set('Authorization', auth)
        .set('Idempotency-Key', idem())
        .send({ email: `${role}-${idem()}@example.com`, password: 'a long enough password', role });
    for (const role of ['owner', 'admin']) {
      const byKey = await create(tenant.auth, role);
      expectError(byKey, 403, 'permission_error', 'HUMAN_SESSION_REQUIRED');
      expect(byKey.body.error.param).toBe('role');
      expectError(await create(admin, role), 403, 'permission_error', 'OWNER_ROLE_REQUIRED');
    }
    expect(await users()).toBe(count);
    expect((await create(tenant.auth, 'developer')).status).toBe(201);
    expect((await create(admin, 'viewer')).status).toBe(201);
    const byOwner = await create(owner, 'admin');
    expect(byOwner.status).toBe(201);
    const audited = await t.http
      .get(`/v1/audit_events?resource_id=${byOwner.body.id}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    expect(audited.body.data).toEqual([
      expect.objectContaining({
        action: 'user.created',
        principal: { type: 'user', id: tenant.user_id },
        data: { role: 'admin' },
      }),
    ]);
  });

  it('audits the request and each decision, and the adjustment in the requester’s name', async () => {
    const walletId = await fundedWallet();
    const id = await hold(walletId, '80.00');
    const approved = await decide(admin, id, 'approve');
    expect(approved.status).toBe(200);
    const events = await t.http.get(`/v1/audit_events?resource_id=${id}`).set('Authorization', tenant.auth).expect(200);
    expect(
      events.body.data.map((event: any) => ({ action: event.action, principal: event.principal, data: event.data })),
    ).toEqual([
      { action: 'approval.approved', principal: { type: 'user', id: adminId }, data: { checkpoint: 'wallet.adjust' } },
      { action: 'approval.requested', principal: { type: 'user', id: tenant.user_id }, data: { checkpoint: 'wallet.adjust' } },
    ]);
    expect(events.body.data[0].request_id).toBe(approved.headers['request-id']);

    const walletEvents = await t.http
      .get(`/v1/audit_events?resource_id=${walletId}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    const adjusted = walletEvents.body.data.filter((event: any) => event.action === 'wallet.adjusted');
    expect(adjusted).toEqual([
      expect.objectContaining({
        principal: { type: 'user', id: tenant.user_id },
        data: { transaction_id: approved.body.result.response.id, amount: '80.00', currency: 'EUR' },
        request_id: approved.headers['request-id'],
      }),
    ]);
  });
});
