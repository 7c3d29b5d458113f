import { EXPIRE_PROMOTIONAL_LOTS_JOB } from '@app/billing-wallet';
import { JobQueue, ManualClock } from '@app/shared-kernel';
import Big from 'big.js';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { bookViolations, transferViolations } from '../support/hold-ledger';
import { createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { expectWalletError, expectWalletFieldError, WalletClient } from '../support/wallet-helpers';
import { UUID } from '../support/expectations';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const TRANSFER_FIELDS = [
  'object',
  'transfer_id',
  'source_wallet_id',
  'target_wallet_id',
  'amount',
  'target_amount',
  'exchange_rate',
  'debit_transaction',
  'credit_transaction',
];

/**
 * Wallet transfers (spec 4.6 transfer rules) and the organization's FX rates over HTTP:
 * atomic legs sharing a transfer_id, promotional lots first with their expiries carried,
 * refusals that move nothing, cross-currency conversion at the configured rate (half-even)
 * through the FX clearing account, and replayed Idempotency-Keys answering 409.
 */
describe('Wallet transfers and FX rates', () => {
  const clock = new ManualClock(new Date('2027-04-01T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let api: WalletClient;
  let stranger: WalletClient;
  const touched: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    api = new WalletClient(t, tenant.auth);
    stranger = new WalletClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  const at = (offset: number) => new Date(clock.now().getTime() + offset).toISOString();

  /** A new customer's primary wallet, credited with `cash` (when given). */
  async function walletWith(cash: string | null, currency = 'EUR', client = api): Promise<any> {
    const { wallet } = await client.customerWithWallet(currency, 'Transfer GmbH');
    touched.push(wallet.id);
    if (cash !== null) await client.ok(wallet.id, 'credit', { amount: cash });
    return wallet;
  }

  /** A secondary wallet of the same customer in another currency. */
  async function secondary(wallet: any, currency: string, settings: Record<string, string> = {}): Promise<any> {
    const response = await api.post('/v1/wallets', { customer_id: wallet.customer_id, currency, ...settings });
    expect(response.status).toBe(201);
    touched.push(response.body.id);
    return response.body;
  }

  function transfer(sourceId: string, body: unknown, key: string | null = idem(), client = api): Promise<request.Response> {
    return client.post(`/v1/wallets/${sourceId}/transfer`, body, key);
  }

  async function ok(sourceId: string, body: Record<string, unknown>): Promise<any> {
    const response = await transfer(sourceId, body);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: expect.anything() });
    return response.body;
  }

  function putRate(from: string, to: string, body: unknown, client = api): Promise<request.Response> {
    return t.http
      .put(`/v1/fx_rates/${from}/${to}`)
      .set('Authorization', client.auth)
      .send(body as object)
      .then((response) => response);
  }

  async function balances(walletId: string): Promise<Record<string, string>> {
    const wallet = await api.wallet(walletId);
    return { cash: wallet.cash_balance, promotional: wallet.promotional_balance, available: wallet.available_balance };
  }

  async function lots(walletId: string): Promise<Array<{ amount: string; remaining: string; expires_at: Date | null }>> {
    return db.query(
      `SELECT amount::text, remaining::text, expires_at FROM promotional_lots WHERE wallet_id = $1
        ORDER BY expires_at NULLS LAST, created_at, id`,
      [walletId],
    );
  }

  /** What "nothing moved" compares: both wallets, their ledgers and lots, and the org's transfers. */
  async function books(...walletIds: string[]): Promise<unknown> {
    const wallets = [];
    for (const id of walletIds) {
      wallets.push({
        wallet: await api.wallet(id),
        lines: await db.query('SELECT id FROM wallet_transactions WHERE wallet_id = $1 ORDER BY id', [id]),
        lots: await db.query('SELECT id, remaining::text FROM promotional_lots WHERE wallet_id = $1 ORDER BY id', [id]),
      });
    }
    const [counts] = await db.query(
      `SELECT (SELECT count(*) FROM wallet_transfers WHERE organization_id = $1)::int AS transfers,
              (SELECT count(*) FROM fx_clearing_entries WHERE organization_id = $1)::int AS clearing`,
      [tenant.organization_id],
    );
    return { wallets, counts };
  }

  async function transactions(walletId: string): Promise<any[]> {
    const response = await api.get(`/v1/wallets/${walletId}/transactions`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  describe('PUT and GET /v1/fx_rates', () => {
    let fx: WalletClient;

    beforeAll(async () => {
      fx = new WalletClient(t, (await createTenant(t)).auth);
    });

    it('sets a rate (200 fx_rate), updates it in place, and lists the organization’s rates by pair', async () => {
      const set = await putRate('EUR', 'USD', { rate: '1.0825' }, fx);
      expect(set.status).toBe(200);
      expect(set.body).toEqual({
        object: 'fx_rate',
        from_currency: 'EUR',
        to_currency: 'USD',
        rate: '1.0825',
        updated_at: clock.now().toISOString(),
      });
      clock.advance(MINUTE);
      const updated = await putRate('EUR', 'USD', { rate: '1.090000' }, fx);
      expect([updated.status, updated.body.rate, updated.body.updated_at]).toEqual([200, '1.09', clock.now().toISOString()]);
      expect((await putRate('USD', 'EUR', { rate: '0.92' }, fx)).status).toBe(200);
      expect((await putRate('EUR', 'JPY', { rate: '162.5' }, fx)).status).toBe(200);

      const listed = await fx.get('/v1/fx_rates');
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({
        data: [
          expect.objectContaining({ object: 'fx_rate', from_currency: 'EUR', to_currency: 'JPY', rate: '162.5' }),
          { ...updated.body },
          expect.objectContaining({ from_currency: 'USD', to_currency: 'EUR', rate: '0.92' }),
        ],
        pagination: { cursor: null, has_more: false },
      });
      // Rates belong to their organization.
      expect((await stranger.get('/v1/fx_rates')).body.data).toEqual([]);
    });

    it('refuses unknown currencies, a pair of one currency, and rates that are not positive decimal strings: 400, nothing stored', async () => {
      const before = (await fx.get('/v1/fx_rates')).body;
      const cases: Array<[string, string, unknown, string, string]> = [
        ['EURO', 'USD', { rate: '1.1' }, 'from', 'INVALID_CURRENCY'],
        ['eur', 'USD', { rate: '1.1' }, 'from', 'INVALID_CURRENCY'],
        ['EUR', 'XXX', { rate: '1.1' }, 'to', 'INVALID_CURRENCY'],
        ['EUR', 'EUR', { rate: '1' }, 'to', 'INVALID_VALUE'],
        ['GBP', 'USD', { rate: '0' }, 'rate', 'OUT_OF_RANGE'],
        ['GBP', 'USD', { rate: '0.000' }, 'rate', 'OUT_OF_RANGE'],
        ['GBP', 'USD', { rate: '-1.25' }, 'rate', 'OUT_OF_RANGE'],
        ['GBP', 'USD', { rate: '1,25' }, 'rate', 'INVALID_FORMAT'],
        ['GBP', 'USD', { rate: '1.1234567890123' }, 'rate', 'TOO_PRECISE'],
        ['GBP', 'USD', { rate: '1.25', as_of: '2027-01-01T00:00:00Z' }, 'as_of', 'UNKNOWN_PARAMETER'],
      ];
      for (const [from, to, body, param, code] of cases) expectWalletFieldError(await putRate(from, to, body, fx), param, code);
      for (const body of [{ rate: 1.25 }, {}, { rate: null }]) {
        expectWalletError(await putRate('GBP', 'USD', body, fx), 400, 'VALIDATION_ERROR');
      }
      expect((await fx.get('/v1/fx_rates')).body).toEqual(before);
    });
  });

  describe('POST /v1/wallets/{id}/transfer in one currency', () => {
    it('moves cash atomically: 200 wallet_transfer, a debit and a credit sharing the transfer_id', async () => {
      const source = await walletWith('100.00');
      const target = await walletWith(null);
      clock.advance(MINUTE);
      const response = await transfer(source.id, {
        amount: { value: '30', currency: 'EUR' },
        target_wallet_id: target.id,
        reason: 'Move credit',
      });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(TRANSFER_FIELDS);
      const transferId = response.body.transfer_id;
      const common = {
        object: 'wallet_transaction',
        source: 'TRANSFER',
        currency: 'EUR',
        reason: 'Move credit',
        reference: null,
        transfer_id: transferId,
        hold_id: null,
        expires_at: null,
        exchange_rate: null,
        created_by: { type: 'api_key', id: tenant.api_key.id },
        created_at: clock.now().toISOString(),
      };
      expect(response.body).toEqual({
        object: 'wallet_transfer',
        transfer_id: expect.stringMatching(UUID),
        source_wallet_id: source.id,
        target_wallet_id: target.id,
        amount: { value: '30.00', currency: 'EUR' },
        target_amount: { value: '30.00', currency: 'EUR' },
        exchange_rate: null,
        debit_transaction: {
          ...common,
          id: expect.stringMatching(UUID),
          wallet_id: source.id,
          type: 'debit',
          amount: '-30.00',
          cash_amount: '-30.00',
          promotional_amount: '0.00',
          ending_cash_balance: '70.00',
          ending_promotional_balance: '0.00',
          funding: { promotional_lots: [], cash: '30.00' },
        },
        credit_transaction: {
          ...common,
          id: expect.stringMatching(UUID),
          wallet_id: target.id,
          type: 'credit',
          amount: '30.00',
          cash_amount: '30.00',
          promotional_amount: '0.00',
          ending_cash_balance: '30.00',
          ending_promotional_balance: '0.00',
          funding: null,
        },
      });
      expect(await balances(source.id)).toEqual({ cash: '70.00', promotional: '0.00', available: '70.00' });
      expect(await balances(target.id)).toEqual({ cash: '30.00', promotional: '0.00', available: '30.00' });
      expect((await transactions(source.id))[0]).toEqual(response.body.debit_transaction);
      expect((await transactions(target.id))[0]).toEqual(response.body.credit_transaction);
      const rows = await db.query(
        `SELECT source_wallet_id, target_wallet_id, amount::text, target_amount::text, exchange_rate, debit_transaction_id,
                credit_transaction_id, (SELECT count(*) FROM fx_clearing_entries c WHERE c.organization_id = w.organization_id AND c.transfer_id = w.id)::int AS clearing
           FROM wallet_transfers w WHERE id = $1`,
        [transferId],
      );
      expect(rows).toEqual([
        {
          source_wallet_id: source.id,
          target_wallet_id: target.id,
          amount: '30.0000',
          target_amount: '30.0000',
          exchange_rate: null,
          debit_transaction_id: response.body.debit_transaction.id,
          credit_transaction_id: response.body.credit_transaction.id,
          clearing: 0,
        },
      ]);
    });

    it('draws promotional lots first (soonest expiry first); the target receives lots with the same expiries, then cash', async () => {
      const source = await walletWith('20.00');
      const target = await walletWith(null);
      const in10 = at(10 * DAY);
      const in30 = at(30 * DAY);
      const promotion = (amount: string, expires_at: string | null) =>
        api.ok(source.id, 'credit', { amount, source: 'PROMOTION', expires_at });
      await promotion('3.00', in30);
      await promotion('2.00', null);
      await promotion('5.00', in10);
      clock.advance(MINUTE);

      const result = await ok(source.id, { amount: { value: '12.00', currency: 'EUR' }, target_wallet_id: target.id });
      expect(result.debit_transaction).toEqual(
        expect.objectContaining({
          amount: '-12.00',
          cash_amount: '-2.00',
          promotional_amount: '-10.00',
          ending_cash_balance: '18.00',
          ending_promotional_balance: '0.00',
          funding: {
            promotional_lots: [
              { lot_id: expect.stringMatching(UUID), amount: '5.00', expires_at: in10 },
              { lot_id: expect.stringMatching(UUID), amount: '3.00', expires_at: in30 },
              { lot_id: expect.stringMatching(UUID), amount: '2.00', expires_at: null },
            ],
            cash: '2.00',
          },
        }),
      );
      expect(result.credit_transaction).toEqual(
        expect.objectContaining({
          amount: '12.00',
          cash_amount: '2.00',
          promotional_amount: '10.00',
          ending_cash_balance: '2.00',
          ending_promotional_balance: '10.00',
        }),
      );
      expect(await lots(target.id)).toEqual([
        { amount: '5.0000', remaining: '5.0000', expires_at: new Date(in10) },
        { amount: '3.0000', remaining: '3.0000', expires_at: new Date(in30) },
        { amount: '2.0000', remaining: '2.0000', expires_at: null },
      ]);
      expect((await lots(source.id)).map((lot) => lot.remaining)).toEqual(['0.0000', '0.0000', '0.0000']);
      expect(await balances(source.id)).toEqual({ cash: '18.00', promotional: '0.00', available: '18.00' });
      expect(await balances(target.id)).toEqual({ cash: '2.00', promotional: '10.00', available: '12.00' });

      // A partial lot is split: the target gets only the part drawn, with the lot's expiry.
      const other = await walletWith(null);
      await api.ok(target.id, 'debit', { amount: '1.00' });
      const part = await ok(target.id, { amount: { value: '6.00', currency: 'EUR' }, target_wallet_id: other.id });
      expect(part.debit_transaction.funding.promotional_lots.map((lot: any) => [lot.amount, lot.expires_at])).toEqual([
        ['4.00', in10],
        ['2.00', in30],
      ]);
      expect(await lots(other.id)).toEqual([
        { amount: '4.0000', remaining: '4.0000', expires_at: new Date(in10) },
        { amount: '2.0000', remaining: '2.0000', expires_at: new Date(in30) },
      ]);

      // The carried expiries are real: ten days on, the lots from the first one expire in both wallets.
      clock.advance(10 * DAY);
      await t.app.get(JobQueue).runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
      expect(await balances(target.id)).toEqual({ cash: '2.00', promotional: '3.00', available: '5.00' });
      expect(await balances(other.id)).toEqual({ cash: '0.00', promotional: '2.00', available: '2.00' });
    });

    it('refuses a transfer to the same wallet with 400 SAME_WALLET_TRANSFER, however its id is written, moving nothing', async () => {
      const wallet = await walletWith('50.00');
      const before = await books(wallet.id);
      for (const target of [wallet.id, wallet.id.toUpperCase()]) {
        const error = expectWalletError(
          await transfer(wallet.id, { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: target }),
          400,
          'SAME_WALLET_TRANSFER',
        );
        expect(error.param).toBe('target_wallet_id');
      }
      expect(await books(wallet.id)).toEqual(before);
    });

    it('treats amount.currency as an echo-guard of the source wallet: another is 400 CURRENCY_MISMATCH, moving nothing', async () => {
      const source = await walletWith('50.00');
      const target = await secondary(source, 'USD');
      const sameCurrency = await walletWith(null);
      await putRate('EUR', 'USD', { rate: '1.0825' });
      const before = await books(source.id, target.id, sameCurrency.id);
      for (const [currency, targetId] of [
        ['USD', target.id],
        ['USD', sameCurrency.id],
        ['GBP', sameCurrency.id],
      ]) {
        const error = expectWalletError(
          await transfer(source.id, { amount: { value: '10.00', currency }, target_wallet_id: targetId }),
          400,
          'CURRENCY_MISMATCH',
        );
        expect(error.details).toEqual({ wallet_currency: 'EUR', currency });
      }
      expect(await books(source.id, target.id, sameCurrency.id)).toEqual(before);
    });

    it('answers 404 for an unknown, another workspace’s or another organization’s wallet, as target or source, moving nothing', async () => {
      const source = await walletWith('50.00');
      const foreign = (await stranger.customerWithWallet('EUR', 'Foreign GmbH')).wallet;
      const session = await signIn(t, tenant.owner!.email, tenant.owner!.password);
      const sandbox = api.as(session, { 'X-Workspace-Id': 'sandbox' });
      const sandboxed = (await sandbox.customerWithWallet('EUR', 'Sandbox GmbH')).wallet;
      const before = await books(source.id);
      for (const targetId of [randomUUID(), foreign.id, sandboxed.id, foreign.id.toUpperCase()]) {
        const error = expectWalletError(
          await transfer(source.id, { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: targetId }),
          404,
          'WALLET_NOT_FOUND',
        );
        expect(error.param).toBe('target_wallet_id');
      }
      for (const sourceId of [randomUUID(), foreign.id, 'wal_1']) {
        expectWalletError(
          await transfer(sourceId, { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: source.id }),
          404,
          'WALLET_NOT_FOUND',
        );
      }
      // Another organization can neither draw from this wallet nor pay into it.
      expectWalletError(
        await transfer(source.id, { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: foreign.id }, idem(), stranger),
        404,
        'WALLET_NOT_FOUND',
      );
      expectWalletError(
        await transfer(foreign.id, { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: source.id }, idem(), stranger),
        404,
        'WALLET_NOT_FOUND',
      );
      expect(await books(source.id)).toEqual(before);
    });

    it('refuses malformed bodies with 400 and requires an Idempotency-Key, moving nothing', async () => {
      const source = await walletWith('50.00');
      const target = await walletWith(null);
      const before = await books(source.id, target.id);
      const body = (value: unknown) => ({ amount: { value, currency: 'EUR' }, target_wallet_id: target.id });
      for (const [value, code] of [
        ['0', 'OUT_OF_RANGE'],
        ['-5.00', 'OUT_OF_RANGE'],
        ['1.001', 'TOO_PRECISE'],
        ['ten', 'INVALID_FORMAT'],
      ]) {
        expectWalletFieldError(await transfer(source.id, body(value)), 'amount.value', code);
      }
      for (const invalid of [
        body(10),
        { amount: '10.00', target_wallet_id: target.id },
        { amount: { value: '10.00' }, target_wallet_id: target.id },
        { amount: { value: '10.00', currency: 'EUR' } },
        { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: 'wal_1' },
        { ...body('10.00'), source: 'PAYMENT' },
        { ...body('10.00'), exchange_rate: '1.5' },
      ]) {
        expectWalletError(await transfer(source.id, invalid), 400, 'VALIDATION_ERROR');
      }
      expectWalletError(await transfer(source.id, body('10.00'), null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      expect(await books(source.id, target.id)).toEqual(before);
    });

    it('refuses more than available + credit_limit with 422 INSUFFICIENT_FUNDS (held money does not count), moving nothing', async () => {
      const source = await walletWith('50.00');
      const target = await walletWith(null);
      expect((await api.post(`/v1/wallets/${source.id}/holds`, { amount: '20.00' })).status).toBe(201);
      const before = await books(source.id, target.id);
      const error = expectWalletError(
        await transfer(source.id, { amount: { value: '30.01', currency: 'EUR' }, target_wallet_id: target.id }),
        422,
        'INSUFFICIENT_FUNDS',
      );
      expect(error.details).toEqual({ requested: '30.01', spendable: '30.00', currency: 'EUR' });
      expect(await books(source.id, target.id)).toEqual(before);

      expect((await api.patch(`/v1/wallets/${source.id}`, { credit_limit: '5.00' })).status).toBe(200);
      expectWalletError(
        await transfer(source.id, { amount: { value: '35.01', currency: 'EUR' }, target_wallet_id: target.id }),
        422,
        'INSUFFICIENT_FUNDS',
      );
      await ok(source.id, { amount: { value: '35.00', currency: 'EUR' }, target_wallet_id: target.id });
      expect(await api.wallet(source.id)).toEqual(
        expect.objectContaining({ cash_balance: '15.00', held_balance: '20.00', available_balance: '-5.00' }),
      );
    });

    it('refuses what would lift the target above its max_balance with 422 LIMIT_EXCEEDED, moving nothing on either side', async () => {
      const source = await walletWith('100.00');
      await api.ok(source.id, 'credit', { amount: '5.00', source: 'PROMOTION', expires_at: at(5 * DAY) });
      const target = await walletWith('40.00');
      expect((await api.patch(`/v1/wallets/${target.id}`, { max_balance: '50.00' })).status).toBe(200);
      const before = await books(source.id, target.id);
      const error = expectWalletError(
        await transfer(source.id, { amount: { value: '10.01', currency: 'EUR' }, target_wallet_id: target.id }),
        422,
        'LIMIT_EXCEEDED',
      );
      expect(error.details).toEqual({ limit: 'max_balance', value: '50.00' });
      expect(await books(source.id, target.id)).toEqual(before);
      await ok(source.id, { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: target.id });
      expect(await balances(target.id)).toEqual({ cash: '45.00', promotional: '5.00', available: '50.00' });
    });
  });

  describe('POST /v1/wallets/{id}/transfer across currencies', () => {
    it('converts at the rate of its own workspace: a sandbox rate never feeds a live transfer', async () => {
      const sandbox = new WalletClient(t, tenant.sandboxAuth);
      // The sandbox sets an absurd rate; it is the sandbox's alone.
      const absurd = await putRate('USD', 'SEK', { rate: '1000' }, sandbox);
      expect(absurd.status).toBe(200);
      expect((await sandbox.get('/v1/fx_rates')).body.data).toEqual([
        expect.objectContaining({ from_currency: 'USD', rate: '1000' }),
      ]);
      expect((await api.get('/v1/fx_rates')).body.data.filter((rate: any) => rate.to_currency === 'SEK')).toEqual([]);

      const source = await walletWith('10.00', 'USD');
      const target = await secondary(source, 'SEK');
      const before = await books(source.id, target.id);
      const body = { amount: { value: '1.00', currency: 'USD' }, target_wallet_id: target.id };
      expectWalletError(await transfer(source.id, body), 422, 'FX_RATE_NOT_CONFIGURED');
      expect(await books(source.id, target.id)).toEqual(before);

      expect((await putRate('USD', 'SEK', { rate: '10.5' })).status).toBe(200);
      const live = await ok(source.id, body);
      expect(live.target_amount).toEqual({ value: '10.50', currency: 'SEK' });
      // ...and the sandbox keeps converting at its own rate.
      const { wallet: sandboxSource } = await sandbox.customerWithWallet('USD', 'Sandbox Inc');
      await sandbox.ok(sandboxSource.id, 'credit', { amount: '2.00' });
      const created = await sandbox.post('/v1/wallets', { customer_id: sandboxSource.customer_id, currency: 'SEK' });
      expect(created.status).toBe(201);
      const converted = await transfer(sandboxSource.id, { ...body, target_wallet_id: created.body.id }, idem(), sandbox);
      expect(converted.status).toBe(200);
      expect(converted.body.target_amount).toEqual({ value: '1000.00', currency: 'SEK' });
    });

    it('refuses a cross-currency transfer without a configured rate: 422 FX_RATE_NOT_CONFIGURED, moving nothing', async () => {
      const source = await walletWith('50.00', 'GBP');
      const target = await secondary(source, 'CHF');
      // Only the pair in its own direction serves: CHF→GBP does not convert GBP into CHF.
      expect((await putRate('CHF', 'GBP', { rate: '0.9' })).status).toBe(200);
      const before = await books(source.id, target.id);
      const error = expectWalletError(
        await transfer(source.id, { amount: { value: '10.00', currency: 'GBP' }, target_wallet_id: target.id }),
        422,
        'FX_RATE_NOT_CONFIGURED',
      );
      expect(error.details).toEqual({ from_currency: 'GBP', to_currency: 'CHF' });
      expect(await books(source.id, target.id)).toEqual(before);
    });

    it('converts at the organization’s rate, half-even, returns the snapshot, and balances each currency through the clearing account', async () => {
      const set = await putRate('EUR', 'USD', { rate: '1.0825' });
      expect(set.status).toBe(200);
      const source = await walletWith('500.00');
      const target = await secondary(source, 'USD');
      clock.advance(MINUTE);

      const result = await ok(source.id, {
        amount: { value: '100.00', currency: 'EUR' },
        target_wallet_id: target.id,
        reason: 'To the US entity',
      });
      const snapshot = { rate: '1.0825', from_currency: 'EUR', to_currency: 'USD', as_of: set.body.updated_at };
      expect(result).toEqual(
        expect.objectContaining({
          amount: { value: '100.00', currency: 'EUR' },
          target_amount: { value: '108.25', currency: 'USD' },
          exchange_rate: snapshot,
        }),
      );
      expect(result.debit_transaction).toEqual(
        expect.objectContaining({
          currency: 'EUR',
          amount: '-100.00',
          exchange_rate: snapshot,
          transfer_id: result.transfer_id,
        }),
      );
      expect(result.credit_transaction).toEqual(
        expect.objectContaining({
          wallet_id: target.id,
          currency: 'USD',
          amount: '108.25',
          cash_amount: '108.25',
          ending_cash_balance: '108.25',
          exchange_rate: snapshot,
          transfer_id: result.transfer_id,
        }),
      );
      expect(await balances(target.id)).toEqual({ cash: '108.25', promotional: '0.00', available: '108.25' });
      expect(
        await db.query('SELECT currency, amount::text FROM fx_clearing_entries WHERE transfer_id = $1 ORDER BY currency', [
          result.transfer_id,
        ]),
      ).toEqual([
        { currency: 'EUR', amount: '100.0000' },
        { currency: 'USD', amount: '-108.2500' },
      ]);

      // Half-even at the target's minor unit: 0.10825 → 0.11; 0.054125 → 0.05.
      const small = await ok(source.id, { amount: { value: '0.10', currency: 'EUR' }, target_wallet_id: target.id });
      expect(small.target_amount).toEqual({ value: '0.11', currency: 'USD' });
      const smaller = await ok(source.id, { amount: { value: '0.05', currency: 'EUR' }, target_wallet_id: target.id });
      expect(smaller.target_amount).toEqual({ value: '0.05', currency: 'USD' });

      // A new rate serves the next transfer; the earlier ones keep their snapshot.
      clock.advance(MINUTE);
      const reset = await putRate('EUR', 'USD', { rate: '1.1' });
      const later = await ok(source.id, { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: target.id });
      expect([later.target_amount.value, later.exchange_rate]).toEqual([
        '11.00',
        { rate: '1.1', from_currency: 'EUR', to_currency: 'USD', as_of: reset.body.updated_at },
      ]);
      const stored = (await transactions(target.id)).find((line) => line.id === result.credit_transaction.id);
      expect(stored.exchange_rate).toEqual(snapshot);
      const [row] = await db.query('SELECT exchange_rate FROM wallet_transfers WHERE id = $1', [result.transfer_id]);
      expect(row.exchange_rate).toEqual(snapshot);
    });

    it.each([
      // Exact ties at the minor unit go to the even neighbour.
      ['0.01', '150', '2'], // 1.5 → 2
      ['0.03', '150', '4'], // 4.5 → 4
      ['0.05', '150', '8'], // 7.5 → 8
      ['1.00', '150', '150'],
    ])('converts %s EUR at %s into %s JPY (no minor unit), half-even', async (value, rate, converted) => {
      expect((await putRate('EUR', 'JPY', { rate })).status).toBe(200);
      const source = await walletWith('10.00');
      const target = await secondary(source, 'JPY');
      const result = await ok(source.id, { amount: { value, currency: 'EUR' }, target_wallet_id: target.id });
      expect(result.target_amount).toEqual({ value: converted, currency: 'JPY' });
      expect((await api.wallet(target.id)).cash_balance).toBe(converted);
    });

    it('converts the whole amount once: the promotional and cash parts add up to half-even(amount × rate), lots keep their expiry', async () => {
      expect((await putRate('EUR', 'SEK', { rate: '1.0825' })).status).toBe(200);
      const source = await walletWith('10.00');
      const in20 = at(20 * DAY);
      await api.ok(source.id, 'credit', { amount: '0.07', source: 'PROMOTION', expires_at: in20 });
      const target = await secondary(source, 'SEK');
      // 0.14 × 1.0825 = 0.15155 → 0.15; converting 0.07 of promotion and 0.07 of cash apart would give 0.08 + 0.08.
      const result = await ok(source.id, { amount: { value: '0.14', currency: 'EUR' }, target_wallet_id: target.id });
      expect(result.target_amount).toEqual({ value: '0.15', currency: 'SEK' });
      expect(result.credit_transaction).toEqual(expect.objectContaining({ amount: '0.15' }));
      const credit = result.credit_transaction;
      expect(new Big(credit.cash_amount).plus(credit.promotional_amount).toFixed(2)).toBe('0.15');
      expect(new Big(credit.promotional_amount).gt(0)).toBe(true);
      // The promotional part stays a lot with the source lot's expiry.
      const promotional = new Big(credit.promotional_amount).toFixed(4);
      expect(await lots(target.id)).toEqual([{ amount: promotional, remaining: promotional, expires_at: new Date(in20) }]);
      expect(await balances(target.id)).toEqual({
        cash: credit.cash_amount,
        promotional: credit.promotional_amount,
        available: '0.15',
      });
      expect(
        await db.query('SELECT currency, amount::text FROM fx_clearing_entries WHERE transfer_id = $1 ORDER BY currency', [
          result.transfer_id,
        ]),
      ).toEqual([
        { currency: 'EUR', amount: '0.1400' },
        { currency: 'SEK', amount: '-0.1500' },
      ]);
    });

    it('refuses an amount whose conversion rounds to zero: 400, moving nothing', async () => {
      expect((await putRate('EUR', 'KWD', { rate: '0.0004' })).status).toBe(200);
      const source = await walletWith('10.00');
      const target = await secondary(source, 'KWD');
      const before = await books(source.id, target.id);
      expectWalletFieldError(
        await transfer(source.id, { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: target.id }),
        'amount.value',
        'OUT_OF_RANGE',
      );
      expect(await books(source.id, target.id)).toEqual(before);
      // KWD has three decimals: 2.00 × 0.0004 = 0.0008 → 0.001.
      const result = await ok(source.id, { amount: { value: '2.00', currency: 'EUR' }, target_wallet_id: target.id });
      expect(result.target_amount).toEqual({ value: '0.001', currency: 'KWD' });
    });
  });

  describe('Idempotency-Key on transfers', () => {
    it('answers a replayed key with 409 IDEMPOTENCY_KEY_ALREADY_PROCESSED naming the transfer, and moves nothing twice', async () => {
      const source = await walletWith('100.00');
      const target = await walletWith(null);
      const key = idem();
      const body = { amount: { value: '25.00', currency: 'EUR' }, target_wallet_id: target.id };
      const first = await transfer(source.id, body, key);
      expect(first.status).toBe(200);
      const after = await books(source.id, target.id);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const replay = await transfer(source.id, body, key);
        expect({ status: replay.status, code: replay.body.error?.code }).toEqual({
          status: 409,
          code: 'IDEMPOTENCY_KEY_ALREADY_PROCESSED',
        });
        expect(replay.body.error).toEqual(
          expect.objectContaining({
            status: 409,
            param: 'Idempotency-Key',
            details: { transfer_id: first.body.transfer_id },
            request_id: replay.headers['request-id'],
          }),
        );
      }
      // The same key with another body is a misuse of the key, not a replay.
      expectWalletError(
        await transfer(source.id, { ...body, amount: { value: '26.00', currency: 'EUR' } }, key),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      expect(await books(source.id, target.id)).toEqual(after);
      expect(await balances(source.id)).toEqual({ cash: '75.00', promotional: '0.00', available: '75.00' });
      expect(await balances(target.id)).toEqual({ cash: '25.00', promotional: '0.00', available: '25.00' });
    });

    it('replays a refused transfer’s key with the same refusal: nothing was processed', async () => {
      const source = await walletWith('10.00');
      const target = await walletWith(null);
      const key = idem();
      const body = { amount: { value: '25.00', currency: 'EUR' }, target_wallet_id: target.id };
      const refused = await transfer(source.id, body, key);
      expectWalletError(refused, 422, 'INSUFFICIENT_FUNDS');
      const again = await transfer(source.id, body, key);
      expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([422, 'true', refused.text]);
      expect(await balances(source.id)).toEqual({ cash: '10.00', promotional: '0.00', available: '10.00' });
    });

    it('moves once for 10 parallel requests with one key: one 200, the others 409', async () => {
      const source = await walletWith('100.00');
      const target = await walletWith(null);
      const key = idem();
      const body = { amount: { value: '10.00', currency: 'EUR' }, target_wallet_id: target.id };
      const responses = await Promise.all(Array.from({ length: 10 }, () => transfer(source.id, body, key)));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, ...Array.from({ length: 9 }, () => 409)]);
      const winner = responses.find((response) => response.status === 200)!;
      for (const response of responses.filter((candidate) => candidate.status === 409)) {
        expect(['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_ALREADY_PROCESSED']).toContain(response.body.error.code);
        if (response.body.error.code === 'IDEMPOTENCY_KEY_ALREADY_PROCESSED')
          expect(response.body.error.details).toEqual({ transfer_id: winner.body.transfer_id });
      }
      expect(await balances(target.id)).toEqual({ cash: '10.00', promotional: '0.00', available: '10.00' });
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM wallet_transfers WHERE source_wallet_id = $1', [
        source.id,
      ]);
      expect(count).toBe(1);
    });
  });

  it('keeps the books: every transfer has its two legs, each currency sums to zero with the clearing account, ledgers chain', async () => {
    expect(touched.length).toBeGreaterThan(20);
    expect(await transferViolations(db, tenant.organization_id)).toEqual([]);
    expect(await bookViolations(db, touched)).toEqual([]);
  });
});
