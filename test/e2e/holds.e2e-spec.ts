import { EXPIRE_PROMOTIONAL_LOTS_JOB, RELEASE_EXPIRED_HOLD_JOB } from '@app/billing-wallet';
import { JobQueue, ManualClock } from '@app/shared-kernel';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { bookViolations } from '../support/hold-ledger';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { expectWalletError, expectWalletFieldError, WalletClient } from '../support/wallet-helpers';
import { ISO, UUID } from '../support/expectations';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The hold object of the contract, in the order the API renders it. */
const HOLD_FIELDS = [
  'id',
  'object',
  'wallet_id',
  'amount',
  'currency',
  'status',
  'expires_at',
  'reason',
  'reference_id',
  'reference_type',
  'reverse_charge',
  'tax_rate',
  'tax_rule_id',
  'exchange_rate_base_leg_id',
  'exchange_rate_id',
  'fx_policy_applied',
  'metric_key',
  'subscription_id',
  'applied_promotions',
  'release_reason',
  'captured_amount',
  'captured_net_amount',
  'captured_tax_amount',
  'capture_transaction_id',
  'captured_at',
  'released_at',
  'created_at',
];

/** Set only by an internal reserve service: always null through the public API (spec 2.10). */
const INTERNAL_NULLS = {
  exchange_rate_base_leg_id: null,
  exchange_rate_id: null,
  fx_policy_applied: null,
  metric_key: null,
  subscription_id: null,
  applied_promotions: null,
};

/**
 * Wallet holds over HTTP: create, list, get, capture (full, partial, taxed), release, and the
 * release at expires_at. The app runs on a ManualClock set after the real date, so the queued
 * release jobs never fire by themselves; the tests run them with JobQueue.runNow. The last block
 * runs a second app on the database clock to measure the real release latency (P8).
 */
describe('Wallet holds', () => {
  // Later than the real date: a release job queued for expires_at stays queued during the run.
  const clock = new ManualClock(new Date('2027-03-01T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let api: WalletClient;
  let stranger: WalletClient;
  const touched: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
    api = new WalletClient(t, tenant.auth);
    stranger = new WalletClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  /** A customer's primary wallet, credited with `cash` (when given). */
  async function walletWith(cash: string | null, currency = 'EUR'): Promise<any> {
    const { wallet } = await api.customerWithWallet(currency, 'Hold GmbH');
    touched.push(wallet.id);
    if (cash !== null) await api.ok(wallet.id, 'credit', { amount: cash });
    return wallet;
  }

  function holds(walletId: string, holdId?: string, verb?: 'capture' | 'release'): string {
    return `/v1/wallets/${walletId}/holds${holdId ? `/${holdId}` : ''}${verb ? `/${verb}` : ''}`;
  }

  async function place(walletId: string, body: Record<string, unknown>): Promise<any> {
    const response = await api.post(holds(walletId), body);
    expect({ status: response.status, body: response.body }).toEqual({ status: 201, body: expect.anything() });
    return response.body;
  }

  async function capture(walletId: string, holdId: string, body: Record<string, unknown> = {}): Promise<request.Response> {
    return api.post(holds(walletId, holdId, 'capture'), body);
  }

  async function balances(walletId: string): Promise<Record<string, string>> {
    const wallet = await api.wallet(walletId);
    return {
      cash: wallet.cash_balance,
      promotional: wallet.promotional_balance,
      held: wallet.held_balance,
      available: wallet.available_balance,
    };
  }

  async function lines(walletId: string): Promise<any[]> {
    const response = await api.get(`/v1/wallets/${walletId}/transactions`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  /** What "nothing changed" compares: the wallet, its ledger and its holds as stored. */
  async function stored(walletId: string): Promise<unknown> {
    return {
      wallet: await api.wallet(walletId),
      lines: await db.query('SELECT id FROM wallet_transactions WHERE wallet_id = $1 ORDER BY id', [walletId]),
      holds: await db.query(
        'SELECT id, status, release_reason, captured_amount FROM wallet_holds WHERE wallet_id = $1 ORDER BY id',
        [walletId],
      ),
    };
  }

  function releaseJob(walletId: string, holdId: string): Promise<void> {
    return t.app.get(JobQueue).runNow(RELEASE_EXPIRED_HOLD_JOB, {
      organizationId: tenant.organization_id,
      workspaceId: tenant.liveWorkspaceId,
      walletId,
      holdId,
    });
  }

  const at = (offset: number) => new Date(clock.now().getTime() + offset).toISOString();

  describe('POST /v1/wallets/{id}/holds', () => {
    it('places a hold: 201 with Location and every field; held rises, available falls, cash and the ledger stay', async () => {
      const wallet = await walletWith('100.00');
      const ledgerBefore = await lines(wallet.id);
      clock.advance(MINUTE);
      const expiresAt = at(DAY);
      const response = await api.post(holds(wallet.id), {
        amount: '40',
        currency: 'EUR',
        expires_at: expiresAt,
        reason: 'Usage reservation',
        reference_id: 'inv_42',
        reference_type: 'invoice',
        reverse_charge: false,
        tax_rate: '0.19',
        tax_rule_id: 'txr_de_standard',
      });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe(`/v1/wallets/${wallet.id}/holds/${response.body.id}`);
      expect(Object.keys(response.body)).toEqual(HOLD_FIELDS);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'wallet_hold',
        wallet_id: wallet.id,
        amount: '40.00',
        currency: 'EUR',
        status: 'pending',
        expires_at: expiresAt,
        reason: 'Usage reservation',
        reference_id: 'inv_42',
        reference_type: 'invoice',
        reverse_charge: false,
        tax_rate: '0.19',
        tax_rule_id: 'txr_de_standard',
        ...INTERNAL_NULLS,
        release_reason: null,
        captured_amount: null,
        captured_net_amount: null,
        captured_tax_amount: null,
        capture_transaction_id: null,
        captured_at: null,
        released_at: null,
        created_at: clock.now().toISOString(),
      });
      expect(await balances(wallet.id)).toEqual({ cash: '100.00', promotional: '0.00', held: '40.00', available: '60.00' });
      expect(await lines(wallet.id)).toEqual(ledgerBefore);

      const read = await api.get(holds(wallet.id, response.body.id));
      expect([read.status, read.body]).toEqual([200, response.body]);
    });

    it('defaults: the wallet’s currency, no expiry, no reference, no tax, reverse_charge false', async () => {
      const wallet = await walletWith('1000', 'JPY');
      const hold = await place(wallet.id, { amount: '250' });
      expect(hold).toEqual(
        expect.objectContaining({
          amount: '250',
          currency: 'JPY',
          expires_at: null,
          reason: null,
          reference_id: null,
          reference_type: null,
          reverse_charge: false,
          tax_rate: null,
          tax_rule_id: null,
          ...INTERNAL_NULLS,
        }),
      );
      expect(await balances(wallet.id)).toEqual({ cash: '1000', promotional: '0', held: '250', available: '750' });
    });

    it('queues the release job with the hold, due at expires_at; a hold without expiry queues none', async () => {
      const wallet = await walletWith('20.00');
      const expiring = await place(wallet.id, { amount: '5.00', expires_at: at(HOUR) });
      const open = await place(wallet.id, { amount: '5.00' });
      const jobs = await db.query(
        `SELECT data->>'holdId' AS hold_id, start_after FROM pgboss.job WHERE name = $1 AND data->>'walletId' = $2`,
        [RELEASE_EXPIRED_HOLD_JOB, wallet.id],
      );
      expect(jobs).toEqual([{ hold_id: expiring.id, start_after: new Date(expiring.expires_at) }]);
      expect(open.expires_at).toBeNull();
    });

    it('refuses a hold beyond available + credit_limit with 422 INSUFFICIENT_FUNDS; holds already placed count', async () => {
      const wallet = await walletWith('100.00');
      await place(wallet.id, { amount: '60.00' });
      const before = await stored(wallet.id);
      const refused = expectWalletError(await api.post(holds(wallet.id), { amount: '40.01' }), 422, 'INSUFFICIENT_FUNDS');
      expect(refused.details).toEqual({ requested: '40.01', spendable: '40.00', currency: 'EUR' });
      expect(await stored(wallet.id)).toEqual(before);
      // A debit cannot spend held money either.
      expectWalletError(await api.money(wallet.id, 'debit', { amount: '40.01' }), 422, 'INSUFFICIENT_FUNDS');

      await place(wallet.id, { amount: '40.00' });
      expect(await balances(wallet.id)).toEqual({ cash: '100.00', promotional: '0.00', held: '100.00', available: '0.00' });
      expect((await api.patch(`/v1/wallets/${wallet.id}`, { credit_limit: '15.00' })).status).toBe(200);
      expectWalletError(await api.post(holds(wallet.id), { amount: '15.01' }), 422, 'INSUFFICIENT_FUNDS');
      await place(wallet.id, { amount: '15.00' });
      expect(await balances(wallet.id)).toEqual({ cash: '100.00', promotional: '0.00', held: '115.00', available: '-15.00' });
    });

    it('treats currency as an echo-guard: the wallet’s passes, another is 400 CURRENCY_MISMATCH and holds nothing', async () => {
      const wallet = await walletWith('50.00');
      const before = await stored(wallet.id);
      const mismatch = expectWalletError(
        await api.post(holds(wallet.id), { amount: '5.00', currency: 'USD' }),
        400,
        'CURRENCY_MISMATCH',
      );
      expect(mismatch.details).toEqual({ wallet_currency: 'EUR', currency: 'USD' });
      expect(await stored(wallet.id)).toEqual(before);
      expect((await place(wallet.id, { amount: '5.00', currency: 'EUR' })).currency).toBe('EUR');
    });

    it('requires reference_id and reference_type together: 400 naming the missing one', async () => {
      const wallet = await walletWith('50.00');
      const before = await stored(wallet.id);
      expectWalletFieldError(
        await api.post(holds(wallet.id), { amount: '1.00', reference_id: 'inv_1' }),
        'reference_type',
        'REQUIRED',
      );
      expectWalletFieldError(
        await api.post(holds(wallet.id), { amount: '1.00', reference_type: 'invoice' }),
        'reference_id',
        'REQUIRED',
      );
      expect(await stored(wallet.id)).toEqual(before);
    });

    it('refuses bad amounts, expiries, tax rates, internal-only and unknown fields with 400, holding nothing', async () => {
      const wallet = await walletWith('50.00');
      const before = await stored(wallet.id);
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ amount: '0' }, 'amount', 'OUT_OF_RANGE'],
        [{ amount: '-5.00' }, 'amount', 'OUT_OF_RANGE'],
        [{ amount: '1.001' }, 'amount', 'TOO_PRECISE'],
        [{ amount: '1e3' }, 'amount', 'INVALID_FORMAT'],
        [{ amount: '1.00', expires_at: at(-SECOND) }, 'expires_at', 'OUT_OF_RANGE'],
        [{ amount: '1.00', expires_at: at(0) }, 'expires_at', 'OUT_OF_RANGE'],
        [{ amount: '1.00', tax_rate: '19%' }, 'tax_rate', 'INVALID_FORMAT'],
        [{ amount: '1.00', tax_rate: '-0.19' }, 'tax_rate', 'OUT_OF_RANGE'],
        [{ amount: '1.00', tax_rate: '10' }, 'tax_rate', 'OUT_OF_RANGE'],
        [{ amount: '1.00', tax_rate: '0.123456789' }, 'tax_rate', 'TOO_PRECISE'],
        [{ amount: '1.00', metric_key: 'api_calls' }, 'metric_key', 'UNKNOWN_PARAMETER'],
        [{ amount: '1.00', subscription_id: randomUUID() }, 'subscription_id', 'UNKNOWN_PARAMETER'],
        [{ amount: '1.00', applied_promotions: [] }, 'applied_promotions', 'UNKNOWN_PARAMETER'],
        [{ amount: '1.00', status: 'captured' }, 'status', 'UNKNOWN_PARAMETER'],
        // Timestamps are RFC 3339 strings: no epoch milliseconds, no date without time and offset.
        [{ amount: '1.00', expires_at: Date.parse('2099-01-01T00:00:00Z') }, 'expires_at', 'INVALID_VALUE'],
        [{ amount: '1.00', expires_at: '2099-01-01' }, 'expires_at', 'INVALID_VALUE'],
        [{ amount: '1.00', expires_at: '2099-01-01T00:00:00' }, 'expires_at', 'INVALID_VALUE'],
      ];
      for (const [body, param, code] of cases) expectWalletFieldError(await api.post(holds(wallet.id), body), param, code);
      for (const body of [
        { amount: 5 },
        {},
        { amount: '1.00', tax_rate: 0.19 },
        { amount: '1.00', reverse_charge: 'yes' },
        { amount: '1.00', expires_at: 'tomorrow' },
      ]) {
        expectWalletError(await api.post(holds(wallet.id), body), 400, 'VALIDATION_ERROR');
      }
      expectWalletError(await api.post(holds(wallet.id), { amount: '1.00' }, null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      expect(await stored(wallet.id)).toEqual(before);
    });

    it('places one hold per Idempotency-Key: a replay answers the same bytes', async () => {
      const wallet = await walletWith('50.00');
      const key = idem();
      const first = await api.post(holds(wallet.id), { amount: '7.00' }, key);
      const again = await api.post(holds(wallet.id), { amount: '7.00' }, key);
      expect([first.status, again.status, again.headers['idempotent-replayed'], again.text]).toEqual([
        201,
        201,
        'true',
        first.text,
      ]);
      expect((await balances(wallet.id)).held).toBe('7.00');
      expect((await api.get(holds(wallet.id))).body.data).toHaveLength(1);
    });
  });

  describe('GET /v1/wallets/{id}/holds and /holds/{hold_id}', () => {
    it('lists the pending holds only, newest first; a captured or released hold is still readable by id', async () => {
      const wallet = await walletWith('100.00');
      const first = await place(wallet.id, { amount: '1.00' });
      clock.advance(SECOND);
      const captured = await place(wallet.id, { amount: '2.00' });
      clock.advance(SECOND);
      const released = await place(wallet.id, { amount: '3.00' });
      clock.advance(SECOND);
      const last = await place(wallet.id, { amount: '4.00' });
      expect((await capture(wallet.id, captured.id)).status).toBe(200);
      expect((await api.post(holds(wallet.id, released.id, 'release'))).status).toBe(200);

      const listed = await api.get(holds(wallet.id));
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ data: [last, first], pagination: { cursor: null, has_more: false } });
      for (const hold of [captured, released]) {
        const read = await api.get(holds(wallet.id, hold.id));
        expect([read.status, read.body.id, read.body.status]).toEqual([
          200,
          hold.id,
          hold === captured ? 'captured' : 'released',
        ]);
      }
      expect(await balances(wallet.id)).toEqual({ cash: '98.00', promotional: '0.00', held: '5.00', available: '93.00' });
    });

    it('answers 404 for unknown, malformed, another wallet’s and another organization’s holds and wallets', async () => {
      const wallet = await walletWith('20.00');
      const other = await walletWith('20.00');
      const hold = await place(wallet.id, { amount: '5.00' });
      const before = await stored(wallet.id);
      for (const holdId of [randomUUID(), 'hold_1', hold.id]) {
        const walletId = holdId === hold.id ? other.id : wallet.id;
        for (const response of [
          await api.get(holds(walletId, holdId)),
          await api.post(holds(walletId, holdId, 'capture')),
          await api.post(holds(walletId, holdId, 'release')),
        ]) {
          expectWalletError(response, 404, 'HOLD_NOT_FOUND');
        }
      }
      for (const walletId of [randomUUID(), 'wal_1']) {
        expectWalletError(await api.get(holds(walletId)), 404, 'WALLET_NOT_FOUND');
        expectWalletError(await api.post(holds(walletId), { amount: '1.00' }), 404, 'WALLET_NOT_FOUND');
      }
      // Another organization sees neither the wallet nor its hold, and cannot act on them.
      expectWalletError(await stranger.get(holds(wallet.id)), 404, 'WALLET_NOT_FOUND');
      expectWalletError(await stranger.post(holds(wallet.id), { amount: '1.00' }), 404, 'WALLET_NOT_FOUND');
      for (const response of [
        await stranger.get(holds(wallet.id, hold.id)),
        await stranger.post(holds(wallet.id, hold.id, 'capture')),
        await stranger.post(holds(wallet.id, hold.id, 'release')),
      ]) {
        expect({ status: response.status, code: response.body.error?.code }).toEqual({
          status: 404,
          code: expect.stringMatching(/^(WALLET|HOLD)_NOT_FOUND$/),
        });
      }
      expect(await stored(wallet.id)).toEqual(before);
    });
  });

  describe('POST …/holds/{hold_id}/capture', () => {
    it('captures the whole hold: a hold_capture line carrying the hold id; held back to 0, cash down', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '40.00', reason: 'Usage reservation' });
      clock.advance(MINUTE);
      const response = await capture(wallet.id, hold.id);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(HOLD_FIELDS);
      const [line] = await lines(wallet.id);
      expect(response.body).toEqual({
        ...hold,
        status: 'captured',
        release_reason: null,
        captured_amount: '40.00',
        captured_net_amount: '40.00',
        captured_tax_amount: '0.00',
        capture_transaction_id: line.id,
        captured_at: clock.now().toISOString(),
        released_at: null,
      });
      expect(line).toEqual(
        expect.objectContaining({
          object: 'wallet_transaction',
          wallet_id: wallet.id,
          type: 'hold_capture',
          source: 'CHARGE',
          amount: '-40.00',
          currency: 'EUR',
          cash_amount: '-40.00',
          promotional_amount: '0.00',
          ending_cash_balance: '60.00',
          ending_promotional_balance: '0.00',
          reason: 'Usage reservation',
          hold_id: hold.id,
          transfer_id: null,
          funding: { promotional_lots: [], cash: '40.00' },
          created_by: { type: 'api_key', id: tenant.api_key.id },
          created_at: clock.now().toISOString(),
        }),
      );
      expect(await balances(wallet.id)).toEqual({ cash: '60.00', promotional: '0.00', held: '0.00', available: '60.00' });
      expect((await api.get(holds(wallet.id, hold.id))).body).toEqual(response.body);
      expect((await api.get(holds(wallet.id))).body.data).toEqual([]);
    });

    it('captures part of a hold: the remainder is released (capture_remainder), held back to 0', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '40.00' });
      await place(wallet.id, { amount: '10.00' });
      clock.advance(MINUTE);
      const response = await capture(wallet.id, hold.id, { amount: '12.5' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(
        expect.objectContaining({
          status: 'captured',
          amount: '40.00',
          captured_amount: '12.50',
          release_reason: 'capture_remainder',
          captured_at: clock.now().toISOString(),
          released_at: clock.now().toISOString(),
        }),
      );
      const [line] = await lines(wallet.id);
      expect(line).toEqual(expect.objectContaining({ type: 'hold_capture', amount: '-12.50', hold_id: hold.id }));
      // Only the other hold is still held.
      expect(await balances(wallet.id)).toEqual({ cash: '87.50', promotional: '0.00', held: '10.00', available: '77.50' });
    });

    it('draws promotional lots first, as a debit does', async () => {
      const wallet = await walletWith('20.00');
      await api.ok(wallet.id, 'credit', { amount: '5.00', source: 'PROMOTION', expires_at: at(30 * DAY) });
      const hold = await place(wallet.id, { amount: '8.00' });
      expect((await capture(wallet.id, hold.id)).status).toBe(200);
      const [line] = await lines(wallet.id);
      expect(line).toEqual(
        expect.objectContaining({
          type: 'hold_capture',
          amount: '-8.00',
          cash_amount: '-3.00',
          promotional_amount: '-5.00',
          ending_cash_balance: '17.00',
          ending_promotional_balance: '0.00',
        }),
      );
      expect(line.funding.promotional_lots).toEqual([expect.objectContaining({ amount: '5.00' })]);
      expect(await balances(wallet.id)).toEqual({ cash: '17.00', promotional: '0.00', held: '0.00', available: '17.00' });
    });

    it.each([
      // [currency, hold amount, tax_rate, reverse_charge, captured, net, tax]
      ['EUR', '30.00', '0.19', false, undefined, '25.21', '4.79'],
      ['EUR', '100.00', '0.19', false, '30.00', '25.21', '4.79'],
      ['EUR', '40.00', '0.19', false, undefined, '33.61', '6.39'],
      // Exact ties at the minor unit round to the even neighbour: 0.125 → 0.12, 0.275 → 0.28, 0.025 → 0.02, 0.035 → 0.04.
      ['EUR', '0.20', '0.6', false, undefined, '0.12', '0.08'],
      ['EUR', '0.44', '0.6', false, undefined, '0.28', '0.16'],
      ['EUR', '0.05', '1', false, undefined, '0.02', '0.03'],
      ['EUR', '0.07', '1', false, undefined, '0.04', '0.03'],
      // JPY has no minor unit: 2.5 → 2, 1.5 → 2.
      ['JPY', '5', '1', false, undefined, '2', '3'],
      ['JPY', '3', '1', false, undefined, '2', '1'],
      // Reverse charge: the customer accounts for the VAT, none is in the amount.
      ['EUR', '30.00', '0.19', true, undefined, '30.00', '0.00'],
      // Untaxed.
      ['EUR', '30.00', null, false, undefined, '30.00', '0.00'],
      ['EUR', '30.00', '0', false, undefined, '30.00', '0.00'],
    ] as const)(
      'splits a %s capture of %s at tax_rate %s (reverse charge %s, captured %s) into net %s and tax %s, half-even',
      async (currency, amount, taxRate, reverseCharge, captured, net, tax) => {
        const wallet = await walletWith(currency === 'JPY' ? '1000' : '1000.00', currency);
        const hold = await place(wallet.id, {
          amount,
          reverse_charge: reverseCharge,
          ...(taxRate === null ? {} : { tax_rate: taxRate }),
        });
        const response = await capture(wallet.id, hold.id, captured === undefined ? {} : { amount: captured });
        expect(response.status).toBe(200);
        expect(response.body).toEqual(
          expect.objectContaining({
            status: 'captured',
            reverse_charge: reverseCharge,
            tax_rate: taxRate,
            captured_amount: captured ?? amount,
            captured_net_amount: net,
            captured_tax_amount: tax,
          }),
        );
        // The ledger takes the gross amount.
        expect((await lines(wallet.id))[0].amount).toBe(`-${captured ?? amount}`);
        expect((await api.get(holds(wallet.id, hold.id))).body).toEqual(response.body);
      },
    );

    it('refuses more than held with 422 CAPTURE_EXCEEDS_HOLD; the hold stays pending and capturable', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '50.00' });
      const before = await stored(wallet.id);
      const error = expectWalletError(await capture(wallet.id, hold.id, { amount: '50.01' }), 422, 'CAPTURE_EXCEEDS_HOLD');
      expect(error).toEqual(expect.objectContaining({ param: 'amount', details: { held: '50.00' } }));
      expect(await stored(wallet.id)).toEqual(before);
      for (const [amount, code] of [
        ['0', 'OUT_OF_RANGE'],
        ['-1.00', 'OUT_OF_RANGE'],
        ['1.001', 'TOO_PRECISE'],
        ['ten', 'INVALID_FORMAT'],
      ]) {
        expectWalletFieldError(await capture(wallet.id, hold.id, { amount }), 'amount', code);
      }
      expectWalletFieldError(
        await capture(wallet.id, hold.id, { amount: '1.00', currency: 'EUR' }),
        'currency',
        'UNKNOWN_PARAMETER',
      );
      expect(await stored(wallet.id)).toEqual(before);
      expect((await capture(wallet.id, hold.id, { amount: '50.00' })).status).toBe(200);
    });

    it('refuses a release with a body (it takes none) and a capture whose body is not an object: 400, the hold stays pending', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '10.00' });
      const before = await stored(wallet.id);
      expectWalletFieldError(
        await api.post(holds(wallet.id, hold.id, 'release'), { held_balance: '0.00' }),
        'held_balance',
        'UNKNOWN_PARAMETER',
      );
      expectWalletFieldError(
        await api.post(holds(wallet.id, hold.id, 'release'), { reason: 'manual' }),
        'reason',
        'UNKNOWN_PARAMETER',
      );
      expectWalletFieldError(await api.post(holds(wallet.id, hold.id, 'release'), [1]), 'body', 'INVALID_TYPE');
      // A JSON null is not "no amount": the validation pipe skips null, so it never reaches the capture.
      const nullCapture = await t.http
        .post(holds(wallet.id, hold.id, 'capture'))
        .set('Authorization', api.auth)
        .set('Idempotency-Key', idem())
        .set('Content-Type', 'application/json')
        .send('null');
      expectWalletFieldError(nullCapture, 'body', 'INVALID_TYPE');
      expect(await stored(wallet.id)).toEqual(before);
      expect((await api.post(holds(wallet.id, hold.id, 'release'), {})).body.status).toBe('released');
    });

    it('refuses to capture or release a hold that is no longer pending: 409 HOLD_NOT_PENDING, nothing changes', async () => {
      const wallet = await walletWith('100.00');
      const captured = await place(wallet.id, { amount: '10.00' });
      const partly = await place(wallet.id, { amount: '10.00' });
      const released = await place(wallet.id, { amount: '10.00' });
      expect((await capture(wallet.id, captured.id)).status).toBe(200);
      expect((await capture(wallet.id, partly.id, { amount: '1.00' })).status).toBe(200);
      expect((await api.post(holds(wallet.id, released.id, 'release'))).status).toBe(200);
      const before = await stored(wallet.id);
      for (const [hold, status] of [
        [captured, 'captured'],
        [partly, 'captured'],
        [released, 'released'],
      ] as const) {
        for (const verb of ['capture', 'release'] as const) {
          const error = expectWalletError(await api.post(holds(wallet.id, hold.id, verb)), 409, 'HOLD_NOT_PENDING');
          expect(error.details).toEqual({ status, requested: verb === 'capture' ? 'captured' : 'released' });
        }
        expectWalletError(await capture(wallet.id, hold.id, { amount: '1.00' }), 409, 'HOLD_NOT_PENDING');
      }
      expect(await stored(wallet.id)).toEqual(before);
      expect(await balances(wallet.id)).toEqual({ cash: '89.00', promotional: '0.00', held: '0.00', available: '89.00' });
    });

    it('replays a capture’s Idempotency-Key with the original answer; a new key is refused 409', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '10.00' });
      const key = idem();
      const first = await api.post(holds(wallet.id, hold.id, 'capture'), {}, key);
      const again = await api.post(holds(wallet.id, hold.id, 'capture'), {}, key);
      expect([first.status, again.status, again.headers['idempotent-replayed'], again.text]).toEqual([
        200,
        200,
        'true',
        first.text,
      ]);
      expectWalletError(await capture(wallet.id, hold.id), 409, 'HOLD_NOT_PENDING');
      expect((await balances(wallet.id)).cash).toBe('90.00');
      expect((await lines(wallet.id)).filter((line) => line.type === 'hold_capture')).toHaveLength(1);
    });
  });

  describe('POST …/holds/{hold_id}/release', () => {
    it('releases a pending hold by hand: status released (manual), no ledger line, the funds available again', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '30.00', expires_at: at(DAY) });
      const ledgerBefore = await lines(wallet.id);
      clock.advance(MINUTE);
      const response = await api.post(holds(wallet.id, hold.id, 'release'));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...hold,
        status: 'released',
        release_reason: 'manual',
        released_at: clock.now().toISOString(),
      });
      expect(await lines(wallet.id)).toEqual(ledgerBefore);
      expect(await balances(wallet.id)).toEqual({ cash: '100.00', promotional: '0.00', held: '0.00', available: '100.00' });
      // The release job, due later, leaves the released hold alone.
      clock.advance(2 * DAY);
      await releaseJob(wallet.id, hold.id);
      expect((await api.get(holds(wallet.id, hold.id))).body).toEqual(response.body);
    });
  });

  describe('expiry', () => {
    it('refuses a capture from expires_at on (409 HOLD_NOT_PENDING) even before the release job ran; the job then releases it', async () => {
      const wallet = await walletWith('100.00');
      const hold = await place(wallet.id, { amount: '25.00', expires_at: at(HOUR) });
      const other = await place(wallet.id, { amount: '5.00', expires_at: at(HOUR) });

      // The job running early changes nothing.
      clock.advance(HOUR - 1);
      await releaseJob(wallet.id, hold.id);
      expect((await api.get(holds(wallet.id, hold.id))).body.status).toBe('pending');
      // One millisecond before expires_at a capture still works.
      expect((await capture(wallet.id, other.id)).status).toBe(200);

      clock.advance(1);
      const before = await stored(wallet.id);
      const refused = expectWalletError(await capture(wallet.id, hold.id), 409, 'HOLD_NOT_PENDING');
      expect(refused.details).toEqual({ status: 'expired', expires_at: hold.expires_at });
      expectWalletError(await capture(wallet.id, hold.id, { amount: '1.00' }), 409, 'HOLD_NOT_PENDING');
      expect(await stored(wallet.id)).toEqual(before);
      // Still pending (and still held) until the job runs.
      expect((await api.get(holds(wallet.id, hold.id))).body.status).toBe('pending');
      expect((await balances(wallet.id)).held).toBe('25.00');

      clock.advance(300);
      await releaseJob(wallet.id, hold.id);
      const released = await api.get(holds(wallet.id, hold.id));
      expect(released.body).toEqual({
        ...hold,
        status: 'released',
        release_reason: 'expired',
        released_at: clock.now().toISOString(),
      });
      expect(await balances(wallet.id)).toEqual({ cash: '95.00', promotional: '0.00', held: '0.00', available: '95.00' });
      expect((await lines(wallet.id)).filter((line) => line.hold_id === hold.id)).toEqual([]);
      expect((await api.get(holds(wallet.id))).body.data).toEqual([]);
      for (const verb of ['capture', 'release'] as const) {
        expect(expectWalletError(await api.post(holds(wallet.id, hold.id, verb)), 409, 'HOLD_NOT_PENDING').details.status).toBe(
          'released',
        );
      }
      // Running the job again, or for a captured hold past its expiry, changes nothing.
      const settled = await stored(wallet.id);
      await releaseJob(wallet.id, hold.id);
      await releaseJob(wallet.id, other.id);
      await releaseJob(wallet.id, randomUUID());
      expect(await stored(wallet.id)).toEqual(settled);
      expect((await api.get(holds(wallet.id, other.id))).body.status).toBe('captured');
    });
  });

  describe('promotional lots expiring under a pending hold', () => {
    it('expires only what is not held (never below −credit_limit), the rest once the hold is released; other wallets still expire', async () => {
      const wallet = await walletWith('3.00');
      const bystander = await walletWith(null);
      await api.ok(wallet.id, 'credit', { amount: '10.00', source: 'PROMOTION', expires_at: at(HOUR) });
      await api.ok(bystander.id, 'credit', { amount: '4.00', source: 'PROMOTION', expires_at: at(HOUR) });
      const hold = await place(wallet.id, { amount: '12.00' });
      clock.advance(HOUR);

      // The sweep takes the 1.00 that is not held and leaves the 9.00 the hold still covers.
      await t.app.get(JobQueue).runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
      expect(await balances(wallet.id)).toEqual({ cash: '3.00', promotional: '9.00', held: '12.00', available: '0.00' });
      expect((await lines(wallet.id))[0]).toEqual(
        expect.objectContaining({
          type: 'expiry',
          amount: '-1.00',
          promotional_amount: '-1.00',
          ending_promotional_balance: '9.00',
        }),
      );
      expect(await balances(bystander.id)).toEqual({ cash: '0.00', promotional: '0.00', held: '0.00', available: '0.00' });

      // A sweep with nothing to take changes nothing.
      const before = await stored(wallet.id);
      await t.app.get(JobQueue).runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
      expect(await stored(wallet.id)).toEqual(before);

      expect((await api.post(holds(wallet.id, hold.id, 'release'))).status).toBe(200);
      await t.app.get(JobQueue).runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
      expect(await balances(wallet.id)).toEqual({ cash: '3.00', promotional: '0.00', held: '0.00', available: '3.00' });
      expect((await lines(wallet.id)).filter((line) => line.type === 'expiry').map((line) => line.amount)).toEqual([
        '-9.00',
        '-1.00',
      ]);
      expect(await bookViolations(db, [wallet.id, bystander.id])).toEqual([]);
    });

    it('lets a capture spend what its hold reserved from a lot that expired since, soonest expiry first; not a lot that came later', async () => {
      const wallet = await walletWith('3.00');
      const early = await api.ok(wallet.id, 'credit', { amount: '10.00', source: 'PROMOTION', expires_at: at(HOUR) });
      const hold = await place(wallet.id, { amount: '12.00' });
      clock.advance(MINUTE);
      // Credited after the hold was placed and expired before its capture: never reserved by it.
      await api.ok(wallet.id, 'credit', { amount: '4.00', source: 'PROMOTION', expires_at: at(30 * MINUTE) });
      clock.advance(HOUR);
      expect(await balances(wallet.id)).toEqual({ cash: '3.00', promotional: '14.00', held: '12.00', available: '5.00' });

      const captured = await capture(wallet.id, hold.id);
      expect(captured.status).toBe(200);
      const [line] = await lines(wallet.id);
      expect(line).toEqual(
        expect.objectContaining({
          type: 'hold_capture',
          amount: '-12.00',
          cash_amount: '-2.00',
          promotional_amount: '-10.00',
          ending_cash_balance: '1.00',
          ending_promotional_balance: '4.00',
        }),
      );
      expect(line.funding).toEqual({
        promotional_lots: [{ lot_id: expect.any(String), amount: '10.00', expires_at: early.expires_at }],
        cash: '2.00',
      });

      // The lot credited after the hold is expired for everything: the sweep takes it whole.
      await t.app.get(JobQueue).runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
      expect(await balances(wallet.id)).toEqual({ cash: '1.00', promotional: '0.00', held: '0.00', available: '1.00' });
      expect(await bookViolations(db, [wallet.id])).toEqual([]);
    });
  });

  it('keeps the books of every wallet this file touched: held = Σ pending holds, one hold_capture per captured hold', async () => {
    expect(touched.length).toBeGreaterThan(10);
    expect(await bookViolations(db, touched)).toEqual([]);
  });
});

describe('Wallet holds on the database clock (P8)', () => {
  let t: TestApp;
  let api: WalletClient;

  beforeAll(async () => {
    t = await createTestApp();
    api = new WalletClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  it('releases each of 5 holds expiring in about a second within 2 s of its expires_at, through the queued job', async () => {
    const { wallet } = await api.customerWithWallet('EUR', 'Latency GmbH');
    await api.ok(wallet.id, 'credit', { amount: '100.00' });
    const placed: any[] = [];
    for (let index = 0; index < 5; index += 1) {
      const expiresAt = new Date(Date.now() + 1000 + index * 150).toISOString();
      const response = await api.post(`/v1/wallets/${wallet.id}/holds`, { amount: '1.00', expires_at: expiresAt });
      expect(response.status).toBe(201);
      placed.push(response.body);
    }
    const deadline = Date.now() + 10_000;
    const settled = new Map<string, any>();
    while (settled.size < placed.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const hold of placed.filter((candidate) => !settled.has(candidate.id))) {
        const read = await api.get(`/v1/wallets/${wallet.id}/holds/${hold.id}`);
        if (read.body.status !== 'pending') settled.set(hold.id, read.body);
      }
    }
    const outcomes = placed.map((hold) => {
      const final = settled.get(hold.id);
      return {
        status: final?.status ?? 'pending',
        release_reason: final?.release_reason ?? null,
        released_at: final?.released_at ?? null,
      };
    });
    expect(outcomes).toEqual(
      placed.map(() => ({ status: 'released', release_reason: 'expired', released_at: expect.stringMatching(ISO) })),
    );
    const latencies = placed.map((hold, index) => Date.parse(outcomes[index].released_at) - Date.parse(hold.expires_at));
    console.log(`holds P8: released_at − expires_at (ms): ${latencies.join(', ')}`);
    for (const latency of latencies) {
      expect(latency).toBeGreaterThanOrEqual(0);
      expect(latency).toBeLessThanOrEqual(2000);
    }
    expect((await api.wallet(wallet.id)).held_balance).toBe('0.00');
  });
});
