import { ManualClock } from '@app/shared-kernel';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { tableDigests } from '../support/table-digest';
import { expectWalletError, expectWalletFieldError, ledgerViolations, WalletClient } from '../support/wallet-helpers';

const MINUTE = 60_000;
const DEBITS = '/v1/wallet_debits';

/** What a batch may change; none of it when it is refused as a whole. */
const TABLES = Object.fromEntries(
  ['wallets', 'wallet_transactions', 'promotional_lots', 'audit_events', 'wallet_top_ups', 'outbox_events'].map((table) => [
    table,
    [] as string[],
  ]),
);

/** An error body as an item carries it: the single route's `error`, without the request id (each request has its own). */
function comparable(error: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(error).filter(([name]) => name !== 'request_id'));
}

describe('POST /v1/wallet_debits (batch debits)', () => {
  const clock = new ManualClock(new Date('2026-06-01T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let api: WalletClient;
  let stranger: WalletClient;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    api = new WalletClient(t, tenant.auth);
    stranger = new WalletClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  async function funded(amount: string, name = 'Batch customer', currency = 'EUR', client = api): Promise<any> {
    const { wallet } = await client.customerWithWallet(currency, name);
    if (amount !== '0') await client.ok(wallet.id, 'credit', { amount });
    return wallet;
  }

  function batch(debits: unknown[], options: { atomic?: boolean; key?: string; client?: WalletClient } = {}) {
    const body = { debits, ...(options.atomic === undefined ? {} : { atomic: options.atomic }) };
    return (options.client ?? api).post(DEBITS, body, options.key ?? idem());
  }

  async function lines(walletId: string): Promise<any[]> {
    return (await api.get(`/v1/wallets/${walletId}/transactions?limit=200`)).body.data;
  }

  it('applies every item in request order and answers each as POST /v1/wallets/{id}/debit would: 200 list', async () => {
    const a = await funded('20.00', 'Usage A');
    const b = await funded('5.00', 'Usage B');
    await api.ok(a.id, 'credit', { amount: '3.00', source: 'PROMOTION', expires_at: '2027-01-01T00:00:00Z' });
    clock.advance(MINUTE);
    const response = await batch([
      { wallet_id: a.id, amount: '4.00', reference: 'usage-a-1', reason: 'API calls' },
      { wallet_id: b.id, amount: '1.50', source: 'FEE', currency: 'EUR' },
      { wallet_id: a.id, amount: '2.00' },
    ]);
    expect(response.status).toBe(200);
    expect(response.body.object).toBe('list');
    expect(response.body.data.map((item: any) => [item.index, item.status])).toEqual([
      [0, 200],
      [1, 200],
      [2, 200],
    ]);
    expect(response.body.data.every((item: any) => Object.keys(item).join() === 'index,status,transaction')).toBe(true);
    const [first, second, third] = response.body.data.map((item: any) => item.transaction);
    // Promotional lot first, then cash; the second debit of A starts where the first left it.
    expect(first).toEqual(
      expect.objectContaining({
        object: 'wallet_transaction',
        wallet_id: a.id,
        type: 'debit',
        source: 'CHARGE',
        amount: '-4.00',
        promotional_amount: '-3.00',
        cash_amount: '-1.00',
        ending_cash_balance: '19.00',
        ending_promotional_balance: '0.00',
        reason: 'API calls',
        reference: 'usage-a-1',
      }),
    );
    expect(first.funding.promotional_lots).toHaveLength(1);
    expect(third).toEqual(
      expect.objectContaining({ wallet_id: a.id, amount: '-2.00', cash_amount: '-2.00', ending_cash_balance: '17.00' }),
    );
    expect(second).toEqual(
      expect.objectContaining({ wallet_id: b.id, source: 'FEE', amount: '-1.50', ending_cash_balance: '3.50' }),
    );
    // The items are the ledger's own lines, as the transactions list shows them.
    expect((await lines(a.id)).slice(0, 2)).toEqual([third, first]);
    expect((await lines(b.id))[0]).toEqual(second);
    expect((await api.wallet(a.id)).available_balance).toBe('17.00');
    expect((await api.wallet(b.id)).available_balance).toBe('3.50');
    // One audit row per debit, as the single route writes it, with the batch's request id.
    const audit = await db.query(
      `SELECT resource_id, data->>'transaction_id' AS transaction_id, request_id FROM audit_events
        WHERE action = 'wallet.debited' AND resource_id = ANY ($1) ORDER BY id`,
      [[a.id, b.id]],
    );
    expect(audit).toEqual([
      { resource_id: a.id, transaction_id: first.id, request_id: response.headers['request-id'] },
      { resource_id: b.id, transaction_id: second.id, request_id: response.headers['request-id'] },
      { resource_id: a.id, transaction_id: third.id, request_id: response.headers['request-id'] },
    ]);
    expect(await ledgerViolations(db, [a.id, b.id])).toEqual([]);
  });

  it('answers a mix of outcomes item by item: refused items change nothing, the others apply', async () => {
    const rich = await funded('50.00', 'Mixed rich');
    const poor = await funded('2.00', 'Mixed poor');
    const usd = await funded('10.00', 'Mixed dollars', 'USD');
    const foreign = await funded('10.00', 'Not yours', 'EUR', stranger);
    const items = [
      { wallet_id: rich.id, amount: '5.00' },
      { wallet_id: poor.id, amount: '3.00' },
      { wallet_id: foreign.id, amount: '1.00' },
      { wallet_id: usd.id, amount: '1.00', currency: 'EUR' },
      { wallet_id: rich.id, amount: '1.001' },
      { wallet_id: 'not-a-wallet', amount: '1.00' },
      { wallet_id: randomUUID(), amount: '1.00' },
      { wallet_id: rich.id, amount: '0.00' },
      { wallet_id: rich.id, amount: 'ten' },
      { wallet_id: rich.id, amount: '6.00' },
    ];
    // What the single route answers for each refused item, on wallets in the same state.
    const single: Record<number, request.Response> = {};
    for (const index of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const { wallet_id, ...body } = items[index];
      single[index] = await api.money(wallet_id, 'debit', body);
    }
    const response = await batch(items);
    expect(response.status).toBe(200);
    expect(response.body.data.map((item: any) => [item.index, item.status, item.error?.code ?? item.transaction.amount])).toEqual(
      [
        [0, 200, '-5.00'],
        [1, 422, 'INSUFFICIENT_FUNDS'],
        [2, 404, 'WALLET_NOT_FOUND'],
        [3, 400, 'CURRENCY_MISMATCH'],
        [4, 400, 'VALIDATION_ERROR'],
        [5, 404, 'WALLET_NOT_FOUND'],
        [6, 404, 'WALLET_NOT_FOUND'],
        [7, 400, 'VALIDATION_ERROR'],
        [8, 400, 'VALIDATION_ERROR'],
        [9, 200, '-6.00'],
      ],
    );
    for (const [index, answer] of Object.entries(single)) {
      const item = response.body.data[Number(index)];
      expect({ index, status: item.status, error: comparable(item.error) }).toEqual({
        index,
        status: answer.status,
        error: comparable(answer.body.error),
      });
      expect(item.error.request_id).toBe(response.headers['request-id']);
    }
    expect((await api.wallet(rich.id)).cash_balance).toBe('39.00');
    expect((await api.wallet(poor.id)).cash_balance).toBe('2.00');
    expect((await api.wallet(usd.id)).cash_balance).toBe('10.00');
    expect((await stranger.wallet(foreign.id)).cash_balance).toBe('10.00');
    expect(await ledgerViolations(db, [rich.id, poor.id, usd.id, foreign.id])).toEqual([]);
  });

  it('applies items on one wallet in request order, each against what the earlier ones left', async () => {
    const wallet = await funded('10.00', 'Ordered');
    const response = await batch([
      { wallet_id: wallet.id, amount: '4.00' },
      { wallet_id: wallet.id, amount: '4.00' },
      { wallet_id: wallet.id, amount: '4.00' },
      { wallet_id: wallet.id, amount: '2.00' },
      { wallet_id: wallet.id, amount: '0.01' },
    ]);
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data.map((item: any) => item.status)).toEqual([200, 200, 422, 200, 422]);
    expect(data.map((item: any) => item.transaction?.ending_cash_balance ?? item.error.details.spendable)).toEqual([
      '6.00',
      '2.00',
      '2.00',
      '0.00',
      '0.00',
    ]);
    expect((await lines(wallet.id)).map((line) => line.amount)).toEqual(['-2.00', '-4.00', '-4.00', '10.00']);
    expect(await ledgerViolations(db, [wallet.id])).toEqual([]);
  });

  it('replays a repeated (source, reference): within the batch, across batches and with the single route', async () => {
    const wallet = await funded('30.00', 'References');
    const response = await batch([
      { wallet_id: wallet.id, amount: '3.00', reference: 'meter-1' },
      { wallet_id: wallet.id, amount: '3.00', reference: 'meter-1', reason: 'sent twice' },
      { wallet_id: wallet.id, amount: '4.00', reference: 'meter-1' },
      { wallet_id: wallet.id, amount: '3.00', reference: 'meter-1', source: 'FEE' },
      { wallet_id: wallet.id, amount: '50.00', reference: 'meter-2' },
      { wallet_id: wallet.id, amount: '2.00', reference: 'meter-2' },
    ]);
    expect(response.status).toBe(200);
    const [original, again, other, fee, refused, afterRefusal] = response.body.data;
    expect([original.status, again.status, other.status, fee.status, refused.status, afterRefusal.status]).toEqual([
      200, 200, 409, 200, 422, 200,
    ]);
    expect(again.transaction).toEqual(original.transaction);
    expect(other.error).toEqual(
      expect.objectContaining({ code: 'REFERENCE_ALREADY_USED', details: { transaction_id: original.transaction.id } }),
    );
    expect(fee.transaction.id).not.toBe(original.transaction.id);
    // A refused item leaves its reference free: the next item with it is a new debit.
    expect(afterRefusal.transaction).toEqual(expect.objectContaining({ amount: '-2.00', reference: 'meter-2' }));
    expect((await api.wallet(wallet.id)).cash_balance).toBe('22.00');

    // A later batch, and the single route, replay the committed lines.
    const later = await batch([
      { wallet_id: wallet.id, amount: '2.00', reference: 'meter-2' },
      { wallet_id: wallet.id, amount: '3.00', reference: 'meter-1' },
    ]);
    expect(later.body.data.map((item: any) => item.transaction)).toEqual([afterRefusal.transaction, original.transaction]);
    const single = await api.money(wallet.id, 'debit', { amount: '3.00', reference: 'meter-1' });
    expect(single.headers['idempotent-replayed']).toBe('true');
    expect(single.body).toEqual(original.transaction);
    expect((await api.wallet(wallet.id)).cash_balance).toBe('22.00');
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM wallet_transactions WHERE wallet_id = $1 AND type = 'debit'`,
      [wallet.id],
    );
    expect(count).toBe(3);
    expect(await ledgerViolations(db, [wallet.id])).toEqual([]);
  });

  it('starts one automatic top-up when the batch takes a wallet below its threshold, as a single debit would', async () => {
    const { customer, wallet } = await api.customerWithWallet('EUR', 'Auto top-up');
    const card = await api.post(`/v1/customers/${customer.id}/payment_methods`, { token: 'pm_card_visa' });
    expect(card.status).toBe(201);
    const settings = await api.patch(`/v1/wallets/${wallet.id}`, {
      auto_topup_enabled: true,
      auto_topup_amount: '50.00',
      low_balance_threshold: '10.00',
      auto_topup_payment_method_id: card.body.id,
    });
    expect(settings.status).toBe(200);
    const other = await funded('30.00', 'No top-up');
    await api.ok(wallet.id, 'credit', { amount: '30.00' });
    const automatic = async () =>
      (
        await db.query(`SELECT status, amount::text FROM wallet_top_ups WHERE wallet_id = $1 AND automatic ORDER BY id`, [
          wallet.id,
        ])
      ).map((row: { status: string; amount: string }) => `${row.status} ${row.amount}`);
    // 30 → 20 → 8 (crossing) → 3: one crossing, one top-up.
    const first = await batch([
      { wallet_id: wallet.id, amount: '10.00' },
      { wallet_id: other.id, amount: '25.00' },
      { wallet_id: wallet.id, amount: '12.00' },
      { wallet_id: wallet.id, amount: '5.00' },
    ]);
    expect(first.body.data.map((item: any) => item.status)).toEqual([200, 200, 200, 200]);
    // The top-up's charge runs as a job right after the commit: pending, or already succeeded.
    const oneTopUp = [expect.stringMatching(/^(pending|succeeded) 50\.0000$/)];
    expect(await automatic()).toEqual(oneTopUp);
    // Already below with one pending (or topped up above the threshold): none more.
    await batch([{ wallet_id: wallet.id, amount: '1.00' }]);
    expect(await automatic()).toEqual(oneTopUp);
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM wallet_top_ups WHERE wallet_id = $1`, [other.id]);
    expect(count).toBe(0);
  });

  describe('atomic: true', () => {
    it('applies every item when none is refused', async () => {
      const a = await funded('10.00', 'Atomic A');
      const b = await funded('10.00', 'Atomic B');
      const response = await batch(
        [
          { wallet_id: a.id, amount: '1.00' },
          { wallet_id: b.id, amount: '2.00' },
        ],
        { atomic: true },
      );
      expect(response.status).toBe(200);
      expect(response.body.data.map((item: any) => item.status)).toEqual([200, 200]);
      expect([(await api.wallet(a.id)).cash_balance, (await api.wallet(b.id)).cash_balance]).toEqual(['9.00', '8.00']);
    });

    it('refuses the whole batch when one item is refused: 422 BATCH_REJECTED naming each, nothing applied, replayed as such', async () => {
      const a = await funded('10.00', 'Atomic refused A');
      const b = await funded('1.00', 'Atomic refused B');
      const before = await tableDigests(db, TABLES);
      const key = idem();
      const items = [
        { wallet_id: a.id, amount: '4.00', reference: 'atomic-1' },
        { wallet_id: b.id, amount: '5.00' },
        { wallet_id: randomUUID(), amount: '1.00' },
        { wallet_id: a.id, amount: '4.00' },
      ];
      const response = await batch(items, { atomic: true, key });
      const error = expectWalletError(response, 422, 'BATCH_REJECTED');
      expect(error.details.items).toEqual([
        { index: 1, status: 422, error: expect.objectContaining({ code: 'INSUFFICIENT_FUNDS', type: 'business_rule_error' }) },
        { index: 2, status: 404, error: expect.objectContaining({ code: 'WALLET_NOT_FOUND', status: 404 }) },
      ]);
      expect(await tableDigests(db, TABLES)).toEqual(before);
      // The refusal is the key's answer: replayed byte for byte, still nothing applied.
      const again = await batch(items, { atomic: true, key });
      expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([422, 'true', response.text]);
      expect(await tableDigests(db, TABLES)).toEqual(before);
      // The same items without atomic apply what they can.
      const partial = await batch(items);
      expect(partial.body.data.map((item: any) => item.status)).toEqual([200, 422, 404, 200]);
      expect((await api.wallet(a.id)).cash_balance).toBe('2.00');
    });
  });

  it('replays the whole request under its Idempotency-Key, and refuses the key with another body', async () => {
    const wallet = await funded('10.00', 'Keyed batch');
    const key = idem();
    const items = [
      { wallet_id: wallet.id, amount: '1.00' },
      { wallet_id: wallet.id, amount: '20.00' },
    ];
    const first = await batch(items, { key });
    expect(first.status).toBe(200);
    const after = await tableDigests(db, TABLES);
    clock.advance(MINUTE);
    const again = await batch(items, { key });
    expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([200, 'true', first.text]);
    expect(await tableDigests(db, TABLES)).toEqual(after);
    expectWalletError(await batch([{ wallet_id: wallet.id, amount: '2.00' }], { key }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectWalletError(await api.post(DEBITS, { debits: items }, null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    expect((await api.wallet(wallet.id)).cash_balance).toBe('9.00');
  });

  it('keeps sandbox and live apart: a wallet of the other workspace is that item’s 404', async () => {
    const session = await signIn(t, tenant.owner!.email, tenant.owner!.password);
    const key = await createKey(
      t,
      session,
      { name: 'sandbox batches', scopes: ['customers:write', 'wallets:read', 'wallets:write'] },
      { 'X-Workspace-Id': 'sandbox' },
    );
    const sandbox = new WalletClient(t, `Bearer ${key.secret}`);
    const live = await funded('10.00', 'Live usage');
    const test = await funded('10.00', 'Sandbox usage', 'EUR', sandbox);
    const items = [
      { wallet_id: live.id, amount: '1.00', reference: 'same' },
      { wallet_id: test.id, amount: '1.00', reference: 'same' },
    ];
    const fromSandbox = await batch(items, { client: sandbox });
    expect(fromSandbox.body.data.map((item: any) => [item.status, item.error?.code ?? null])).toEqual([
      [404, 'WALLET_NOT_FOUND'],
      [200, null],
    ]);
    const fromLive = await batch(items);
    expect(fromLive.body.data.map((item: any) => [item.status, item.error?.code ?? null])).toEqual([
      [200, null],
      [404, 'WALLET_NOT_FOUND'],
    ]);
    expect((await api.wallet(live.id)).cash_balance).toBe('9.00');
    expect((await sandbox.wallet(test.id)).cash_balance).toBe('9.00');
    expectWalletError(
      await batch(items, { client: api.as(tenant.auth, { 'X-Workspace-Id': 'sandbox' }) }),
      403,
      'WORKSPACE_MODE_MISMATCH',
    );
  });

  it('refuses malformed batches with 400 VALIDATION_ERROR naming the item’s field, before anything runs and unrecorded', async () => {
    const wallet = await funded('10.00', 'Malformed');
    const valid = { wallet_id: wallet.id, amount: '1.00' };
    const before = await tableDigests(db, TABLES);
    expectWalletFieldError(await api.post(DEBITS, {}), 'debits', 'INVALID_TYPE');
    expectWalletFieldError(await batch([]), 'debits', 'OUT_OF_RANGE');
    expectWalletFieldError(await batch(Array.from({ length: 1001 }, () => valid)), 'debits', 'OUT_OF_RANGE');
    expectWalletFieldError(await batch([valid, valid, valid, { ...valid, amount: 1 }]), 'debits[3].amount', 'INVALID_TYPE');
    expectWalletFieldError(await batch([valid, { amount: '1.00' }]), 'debits[1].wallet_id', 'INVALID_TYPE');
    expectWalletFieldError(await batch([valid, { ...valid, colour: 'red' }]), 'debits[1].colour', 'UNKNOWN_PARAMETER');
    expectWalletFieldError(await batch([{ ...valid, source: 'GIFT' }]), 'debits[0].source', 'INVALID_VALUE');
    expectWalletFieldError(await batch([valid, 'debit']), 'debits[1]', 'INVALID_TYPE');
    expectWalletFieldError(await batch([valid], { atomic: 'yes' as unknown as boolean }), 'atomic', 'INVALID_TYPE');
    expectWalletFieldError(await api.post(DEBITS, { debits: [valid], wallet_id: wallet.id }), 'wallet_id', 'UNKNOWN_PARAMETER');
    // A 1 MB body of tiny items is refused as a whole, without an answer naming each of them.
    const huge = await api.post(DEBITS, { debits: Array.from({ length: 150_000 }, () => ({})) });
    expectWalletFieldError(huge, 'debits', 'OUT_OF_RANGE');
    expect(huge.body.error.errors.length).toBeLessThanOrEqual(3 * 1001 + 1);
    expect(await tableDigests(db, TABLES)).toEqual(before);
    // A validation refusal is not the key's answer: the key then serves a valid request.
    const key = idem();
    expectWalletFieldError(await batch([{ ...valid, amount: 1 }], { key }), 'debits[0].amount', 'INVALID_TYPE');
    expect((await batch([valid], { key })).status).toBe(200);
  });

  it('takes 1,000 items over many wallets in one request, each applied once, the books balanced', async () => {
    const wallets = await Promise.all(Array.from({ length: 20 }, (_, index) => funded('100.00', `Bulk ${index}`)));
    const items = Array.from({ length: 1000 }, (_, index) => ({
      wallet_id: wallets[(index * 7) % 20].id,
      amount: '0.05',
      reference: `bulk-${index % 900}`,
    }));
    const key = idem();
    const response = await batch(items, { key });
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1000);
    expect(response.body.data.every((item: any, index: number) => item.index === index && item.status === 200)).toBe(true);
    // Items 900–999 repeat references 0–99 on the same wallets ((index * 7) % 20 repeats every 20): replays.
    expect(response.body.data[900].transaction.id).toBe(response.body.data[0].transaction.id);
    const balances = await Promise.all(wallets.map(async (wallet) => (await api.wallet(wallet.id)).cash_balance));
    expect(balances).toEqual(wallets.map(() => '97.75'));
    expect(
      await ledgerViolations(
        db,
        wallets.map((wallet) => wallet.id),
      ),
    ).toEqual([]);
    const again = await batch(items, { key });
    expect([again.headers['idempotent-replayed'], again.text]).toEqual(['true', response.text]);
  });
});
