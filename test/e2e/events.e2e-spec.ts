import { randomUUID } from 'node:crypto';
import { EventRetention } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { expectError } from '../support/auth-helpers';
import { createKey, createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { WalletClient } from '../support/wallet-helpers';

jest.setTimeout(60_000);

/**
 * The public event log (api-contract §4): what a change writes (one event per state change, in the
 * workspace where it happened, `data.object` equal to the resource's GET, `sequence` increasing per
 * workspace, the request that made it) and the reads (filters, signed cursors, tenancy, sandbox).
 */
describe('Events', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    a = await createTenant(t);
    b = await createTenant(t);
  });
  afterAll(() => t.close());

  const list = (auth: string, query = '') => t.http.get(`/v1/events${query}`).set('Authorization', auth);

  /** Every event of the caller's workspace, oldest first, following the cursors. */
  async function allEvents(auth: string, query = ''): Promise<any[]> {
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const separator = query ? '&' : '?';
      const response: { body: any } = await list(
        auth,
        `${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`,
      ).expect(200);
      seen.push(...response.body.data);
      cursor = response.body.pagination.cursor;
      expect(cursor === null).toBe(!response.body.pagination.has_more);
    } while (cursor);
    return seen.reverse();
  }

  async function latestSequence(auth: string): Promise<number> {
    const response = await list(auth, '?limit=1').expect(200);
    return response.body.data[0]?.sequence ?? 0;
  }

  async function eventsSince(auth: string, sequence: number): Promise<any[]> {
    return (await allEvents(auth)).filter((event) => event.sequence > sequence);
  }

  it('writes the money path’s events with the resource as its GET answers it, in order, naming the request', async () => {
    const wallets = new WalletClient(t, a.auth);
    const { customer, wallet } = await wallets.customerWithWallet('USD');
    const created = await eventsSince(a.auth, 0);
    expect(created.map((event) => event.type)).toEqual(['wallet.created', 'customer.created']);
    expect(created[0].data.object).toEqual({ ...wallet });
    expect(created[1].data.object).toEqual((await wallets.get(`/v1/customers/${customer.id}`)).body);

    const before = await latestSequence(a.auth);
    const key = idem();
    const credit = await wallets.money(wallet.id, 'credit', { amount: '20.00', reference: 'ev-1' }, key);
    expect(credit.status).toBe(200);
    const [event] = await eventsSince(a.auth, before);
    expect(event).toEqual({
      id: expect.any(String),
      object: 'event',
      type: 'wallet.transaction.created',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      sequence: before + 1,
      workspace_id: a.liveWorkspaceId,
      livemode: true,
      data: { object: credit.body },
      request: { id: credit.headers['request-id'], idempotency_key: key },
    });
    expect((await t.http.get(`/v1/events/${event.id}`).set('Authorization', a.auth).expect(200)).body).toEqual(event);

    // A replay (same key, or same source and reference) changes nothing and writes nothing.
    expect((await wallets.money(wallet.id, 'credit', { amount: '20.00', reference: 'ev-1' }, key)).status).toBe(200);
    expect((await wallets.money(wallet.id, 'credit', { amount: '20.00', reference: 'ev-1' })).status).toBe(200);
    expect(await latestSequence(a.auth)).toBe(before + 1);

    // A refusal writes nothing either.
    const refused = await wallets.money(wallet.id, 'debit', { amount: '5000.00' });
    expect(refused.status).toBe(422);
    expect(await latestSequence(a.auth)).toBe(before + 1);
  });

  it('marks an update with previous_attributes and a downward crossing of low_balance_threshold once', async () => {
    const wallets = new WalletClient(t, a.auth);
    const { wallet } = await wallets.customerWithWallet('EUR');
    await wallets.ok(wallet.id, 'credit', { amount: '10.00' });
    const start = await latestSequence(a.auth);
    const patched = await wallets.patch(`/v1/wallets/${wallet.id}`, { low_balance_threshold: '5.00' });
    expect(patched.status).toBe(200);
    const [updated] = await eventsSince(a.auth, start);
    expect(updated.type).toBe('wallet.updated');
    expect(updated.data.object).toEqual(patched.body);
    expect(updated.data.previous_attributes).toEqual(
      expect.objectContaining({ low_balance_threshold: null, updated_at: expect.any(String) }),
    );
    expect(updated.request).toEqual({ id: patched.headers['request-id'], idempotency_key: null });

    const mark = await latestSequence(a.auth);
    await wallets.ok(wallet.id, 'debit', { amount: '6.00' }); // 10 → 4: crosses 5
    await wallets.ok(wallet.id, 'debit', { amount: '1.00' }); // 4 → 3: already below
    const after = await eventsSince(a.auth, mark);
    expect(after.map((event) => event.type)).toEqual([
      'wallet.transaction.created',
      'wallet.balance_low',
      'wallet.transaction.created',
    ]);
    expect(after[1].data.object).toEqual(expect.objectContaining({ id: wallet.id, available_balance: '4.00' }));
  });

  it('writes hold, capture, release and transfer events, one per ledger line', async () => {
    const wallets = new WalletClient(t, a.auth);
    const { wallet: source } = await wallets.customerWithWallet('EUR');
    const { wallet: target } = await wallets.customerWithWallet('EUR');
    await wallets.ok(source.id, 'credit', { amount: '50.00' });
    const start = await latestSequence(a.auth);
    const hold = (await wallets.post(`/v1/wallets/${source.id}/holds`, { amount: '5.00' })).body;
    const captured = await wallets.post(`/v1/wallets/${source.id}/holds/${hold.id}/capture`, {});
    expect(captured.status).toBe(200);
    const second = (await wallets.post(`/v1/wallets/${source.id}/holds`, { amount: '1.00' })).body;
    const released = await wallets.post(`/v1/wallets/${source.id}/holds/${second.id}/release`, {});
    expect(released.status).toBe(200);
    const transfer = await wallets.post(`/v1/wallets/${source.id}/transfer`, {
      amount: { value: '3.00', currency: 'EUR' },
      target_wallet_id: target.id,
    });
    expect(transfer.status).toBe(200);
    const events = await eventsSince(a.auth, start);
    expect(events.map((event) => event.type)).toEqual([
      'wallet.hold.created',
      'wallet.transaction.created',
      'wallet.hold.captured',
      'wallet.hold.created',
      'wallet.hold.released',
      'wallet.transaction.created',
      'wallet.transaction.created',
    ]);
    expect(events[0].data.object).toEqual(hold);
    expect(events[2].data.object).toEqual(captured.body);
    expect(events[4].data.object).toEqual(released.body);
    expect(events.slice(5).map((event) => [event.data.object.wallet_id, event.data.object.amount])).toEqual([
      [source.id, '-3.00'],
      [target.id, '3.00'],
    ]);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => start + index + 1));
  });

  it('filters by type (exact, comma list, prefix.*), by created_at, and pages with signed cursors', async () => {
    const wallets = new WalletClient(t, b.auth);
    const { wallet } = await wallets.customerWithWallet('EUR');
    for (let i = 0; i < 5; i++) await wallets.ok(wallet.id, 'credit', { amount: '1.00' });
    const everything = await allEvents(b.auth);
    expect(everything.map((event) => event.sequence)).toEqual(everything.map((_, index) => index + 1));

    const transactions = await allEvents(b.auth, '?type=wallet.transaction.created');
    expect(transactions).toHaveLength(5);
    expect(await allEvents(b.auth, '?type=wallet.*')).toHaveLength(6);
    expect((await allEvents(b.auth, '?type=customer.created,wallet.created')).map((event) => event.type)).toEqual([
      'wallet.created',
      'customer.created',
    ]);
    expect(await allEvents(b.auth, '?type=*')).toHaveLength(everything.length);

    const paged = await allEvents(b.auth, '?limit=2');
    expect(paged).toEqual(everything);
    const first = await list(b.auth, '?limit=2&type=wallet.*').expect(200);
    expect(first.body.pagination.has_more).toBe(true);
    // The cursor binds the filter: replayed under another one it is refused.
    const cursor = encodeURIComponent(first.body.pagination.cursor);
    expectError(await list(b.auth, `?limit=2&type=customer.*&cursor=${cursor}`), 400, 'INVALID_CURSOR');
    expectError(await list(b.auth, `?cursor=${cursor.slice(0, -2)}xx`), 400, 'INVALID_CURSOR');

    const middle = everything[3].created_at;
    expect(await allEvents(b.auth, `?created_after=${middle}`)).toEqual(everything.filter((event) => event.created_at >= middle));
    expect(await allEvents(b.auth, `?created_before=${middle}`)).toEqual(everything.filter((event) => event.created_at < middle));

    expectError(await list(b.auth, '?type=wallet.nope'), 400, 'VALIDATION_ERROR');
    expectError(await list(b.auth, '?type=nothing.*'), 400, 'VALIDATION_ERROR');
    expectError(await list(b.auth, '?created_after=yesterday'), 400, 'VALIDATION_ERROR');
    expectError(await list(b.auth, '?colour=red'), 400, 'VALIDATION_ERROR');
  });

  it('keeps events in their organization and workspace: a foreign or sandbox event is a 404', async () => {
    const liveWallets = new WalletClient(t, a.auth);
    await liveWallets.customerWithWallet('EUR');
    const [liveEvent] = (await list(a.auth, '?limit=1').expect(200)).body.data;

    // Another organization: its list holds none of a's events, its GET answers 404 as for an unknown id.
    expect((await allEvents(b.auth)).map((event) => event.id)).not.toContain(liveEvent.id);
    expectError(await t.http.get(`/v1/events/${liveEvent.id}`).set('Authorization', b.auth), 404, 'EVENT_NOT_FOUND');
    expectError(await t.http.get(`/v1/events/${randomUUID()}`).set('Authorization', a.auth), 404, 'EVENT_NOT_FOUND');
    expectError(await t.http.get('/v1/events/not-a-uuid').set('Authorization', a.auth), 404, 'EVENT_NOT_FOUND');

    // The sandbox has its own events and its own sequence.
    const sandbox = new WalletClient(t, a.sandboxAuth);
    const sandboxStart = await latestSequence(a.sandboxAuth);
    await sandbox.customerWithWallet('EUR');
    const sandboxEvents = await eventsSince(a.sandboxAuth, sandboxStart);
    expect(sandboxEvents.map((event) => [event.type, event.workspace_id, event.livemode])).toEqual([
      ['wallet.created', a.sandboxWorkspaceId, false],
      ['customer.created', a.sandboxWorkspaceId, false],
    ]);
    expect((await allEvents(a.auth)).map((event) => event.id)).not.toEqual(expect.arrayContaining([sandboxEvents[0].id]));
    expectError(await t.http.get(`/v1/events/${liveEvent.id}`).set('Authorization', a.sandboxAuth), 404, 'EVENT_NOT_FOUND');
  });

  it('writes the catalog’s events with the resource as its GET answers it', async () => {
    const send = (method: 'post' | 'patch', path: string, body: object) =>
      t.http[method](path).set('Authorization', a.auth).set('Idempotency-Key', idem()).send(body);
    const start = await latestSequence(a.auth);
    const cost = (await send('post', '/v1/costs', { key: 'events_fee', amount: '1.00' }).expect(201)).body;
    const product = (
      await send('post', '/v1/products', { name: 'Events product', price_expression: 'events_fee * 2' }).expect(201)
    ).body;
    const renamed = (await send('patch', `/v1/products/${product.id}`, { name: 'Renamed product' }).expect(200)).body;
    const events = await eventsSince(a.auth, start);
    expect(events.map((event) => event.type)).toEqual(['cost.created', 'product.created', 'product.updated']);
    expect(events[0].data.object).toEqual(cost);
    expect(events[1].data.object).toEqual(product);
    expect(events[2].data.object).toEqual(renamed);
    expect(events[2].data.previous_attributes).toEqual(expect.objectContaining({ name: 'Events product' }));
  });

  it('needs events:read', async () => {
    const key = await createKey(t, a.auth, { name: 'no events', scopes: ['wallets:read'] });
    expectError(await list(`Bearer ${key.secret}`), 403, 'INSUFFICIENT_SCOPE');
    const reader = await createKey(t, a.auth, { name: 'events', scopes: ['events:read'] });
    expect((await list(`Bearer ${reader.secret}`).expect(200)).body.data.length).toBeGreaterThan(0);
  });

  it('forgets events after 30 days (the retention job)', async () => {
    const db = t.app.get(DataSource);
    const [old] = (await list(b.auth, '?limit=1').expect(200)).body.data;
    await db.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE organization_id = $1 AND id = $2`, [
      b.organization_id,
      old.id,
    ]);
    expect(await t.app.get(EventRetention).purgeExpired()).toBe(1);
    expectError(await t.http.get(`/v1/events/${old.id}`).set('Authorization', b.auth), 404, 'EVENT_NOT_FOUND');
    expect((await allEvents(b.auth)).map((event) => event.id)).not.toContain(old.id);
  });
});
