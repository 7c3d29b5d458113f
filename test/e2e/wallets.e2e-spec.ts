import { ManualClock, OutboxRelay } from '@app/shared-kernel';
import Big from 'big.js';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { PromotionalLotExpiry } from '../../libs/billing-wallet/src/application/wallets/lot-expiry';
import { createKey, createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { expectWalletError, expectWalletFieldError, ledgerViolations, WalletClient } from '../support/wallet-helpers';
import { ISO, UUID } from '../support/expectations';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The wallet fields of the contract, in the order the API renders them. */
const WALLET_FIELDS = [
  'id',
  'object',
  'customer_id',
  'currency',
  'is_primary',
  'cash_balance',
  'promotional_balance',
  'held_balance',
  'available_balance',
  'credit_limit',
  'max_balance',
  'max_single_credit',
  'low_balance_threshold',
  'auto_topup_enabled',
  'auto_topup_amount',
  'auto_topup_payment_method_id',
  'created_at',
  'updated_at',
];

const TRANSACTION_FIELDS = [
  'id',
  'object',
  'wallet_id',
  'type',
  'source',
  'amount',
  'currency',
  'cash_amount',
  'promotional_amount',
  'ending_cash_balance',
  'ending_promotional_balance',
  'reason',
  'reference',
  'transfer_id',
  'hold_id',
  'expires_at',
  'exchange_rate',
  'funding',
  'created_by',
  'created_at',
];

describe('Wallets (prepaid, on the ledger)', () => {
  const clock = new ManualClock(new Date('2026-06-01T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let foreign: TestTenant;
  /** The tenant's root key on its live workspace. */
  let api: WalletClient;
  /** Another organization's root key. */
  let stranger: WalletClient;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t, { withOwner: true });
    foreign = await createTenant(t);
    api = new WalletClient(t, tenant.auth);
    stranger = new WalletClient(t, foreign.auth);
  });
  afterAll(() => t.close());

  async function ledgerLines(walletId: string): Promise<number> {
    const [{ count }] = await db.query('SELECT count(*)::int AS count FROM wallet_transactions WHERE wallet_id = $1', [walletId]);
    return count;
  }

  /** The wallet as the API shows it and its ledger size: what "nothing changed" compares. */
  async function state(walletId: string, client = api): Promise<{ wallet: any; lines: number; version: number }> {
    const [{ version }] = await db.query('SELECT version FROM wallets WHERE id = $1', [walletId]);
    return { wallet: await client.wallet(walletId), lines: await ledgerLines(walletId), version };
  }

  async function lotIds(walletId: string): Promise<string[]> {
    const rows = await db.query('SELECT id FROM promotional_lots WHERE wallet_id = $1 ORDER BY created_at, id', [walletId]);
    return rows.map((row: { id: string }) => row.id);
  }

  describe('the primary wallet of a new customer', () => {
    it('is opened with the customer, in the customer’s currency, with zero balances and default limits', async () => {
      const { customer, wallet } = await api.customerWithWallet('EUR', 'Primary GmbH');
      expect(Object.keys(wallet)).toEqual(WALLET_FIELDS);
      expect(wallet).toEqual({
        id: expect.stringMatching(UUID),
        object: 'wallet',
        customer_id: customer.id,
        currency: 'EUR',
        is_primary: true,
        cash_balance: '0.00',
        promotional_balance: '0.00',
        held_balance: '0.00',
        available_balance: '0.00',
        credit_limit: '0.00',
        max_balance: null,
        max_single_credit: null,
        low_balance_threshold: null,
        auto_topup_enabled: false,
        auto_topup_amount: null,
        auto_topup_payment_method_id: null,
        created_at: customer.created_at,
        updated_at: customer.created_at,
      });
      expect(wallet.created_at).toMatch(ISO);
      expect(await api.wallet(wallet.id)).toEqual(wallet);
    });

    it('stays the only wallet when customer_created is relayed, and relayed again (at least once)', async () => {
      const { customer, wallet } = await api.customerWithWallet('USD');
      await t.app.get(OutboxRelay).wake();
      await db.query(`UPDATE outbox_events SET dispatched_at = NULL WHERE payload->>'customerId' = $1`, [customer.id]);
      await t.app.get(OutboxRelay).wake();
      const [{ redelivered }] = await db.query(
        `SELECT count(*)::int AS redelivered FROM outbox_events WHERE payload->>'customerId' = $1 AND dispatched_at IS NOT NULL`,
        [customer.id],
      );
      expect(redelivered).toBe(1);
      const rows = await db.query('SELECT id, is_primary FROM wallets WHERE customer_id = $1', [customer.id]);
      expect(rows).toEqual([{ id: wallet.id, is_primary: true }]);
    });

    it('renders money at the currency’s scale: EUR 2, JPY 0, BHD 3 digits', async () => {
      const { wallet: yen } = await api.customerWithWallet('JPY');
      expect(yen).toEqual(
        expect.objectContaining({ currency: 'JPY', cash_balance: '0', available_balance: '0', credit_limit: '0' }),
      );
      const credit = await api.ok(yen.id, 'credit', { amount: '1000' });
      expect(credit).toEqual(expect.objectContaining({ amount: '1000', cash_amount: '1000', ending_cash_balance: '1000' }));
      expectWalletFieldError(await api.money(yen.id, 'credit', { amount: '10.5' }), 'amount', 'TOO_PRECISE');
      expect((await api.wallet(yen.id)).cash_balance).toBe('1000');

      const { wallet: euro } = await api.customerWithWallet('EUR');
      expect(await api.ok(euro.id, 'credit', { amount: '10.5' })).toEqual(
        expect.objectContaining({ amount: '10.50', ending_cash_balance: '10.50', promotional_amount: '0.00' }),
      );
      expect((await api.wallet(euro.id)).cash_balance).toBe('10.50');

      const { wallet: dinar } = await api.customerWithWallet('BHD');
      expect(dinar.cash_balance).toBe('0.000');
      expect((await api.ok(dinar.id, 'credit', { amount: '1.005' })).amount).toBe('1.005');
      expectWalletFieldError(await api.money(dinar.id, 'credit', { amount: '1.0005' }), 'amount', 'TOO_PRECISE');
    });
  });

  describe('POST /v1/wallets (secondary wallets)', () => {
    let customer: any;
    let primary: any;

    beforeAll(async () => {
      ({ customer, wallet: primary } = await api.customerWithWallet('EUR', 'Secondary AG'));
    });

    async function walletsOf(customerId: string): Promise<number> {
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM wallets WHERE customer_id = $1', [customerId]);
      return count;
    }

    it('creates a secondary wallet with its limits: 201, Location, amounts at the currency’s scale', async () => {
      const response = await api.post('/v1/wallets', {
        customer_id: customer.id,
        currency: 'USD',
        credit_limit: '5',
        max_balance: '1000.5',
        max_single_credit: '250',
        low_balance_threshold: '10',
        auto_topup_enabled: true,
        auto_topup_amount: '50',
      });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe(`/v1/wallets/${response.body.id}`);
      expect(Object.keys(response.body)).toEqual(WALLET_FIELDS);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'wallet',
        customer_id: customer.id,
        currency: 'USD',
        is_primary: false,
        cash_balance: '0.00',
        promotional_balance: '0.00',
        held_balance: '0.00',
        available_balance: '0.00',
        credit_limit: '5.00',
        max_balance: '1000.50',
        max_single_credit: '250.00',
        low_balance_threshold: '10.00',
        auto_topup_enabled: true,
        auto_topup_amount: '50.00',
        auto_topup_payment_method_id: null,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      });
      expect(await api.wallet(response.body.id)).toEqual(response.body);
      expect((await api.wallet(primary.id)).is_primary).toBe(true);
    });

    it('allows one wallet per customer and currency: 409 ALREADY_EXISTS, the primary’s currency included', async () => {
      const before = await walletsOf(customer.id);
      for (const currency of ['USD', 'EUR']) {
        const response = await api.post('/v1/wallets', { customer_id: customer.id, currency });
        expectWalletError(response, 409, 'ALREADY_EXISTS');
        expect(response.body.error.param).toBe('currency');
      }
      expect(await walletsOf(customer.id)).toBe(before);
    });

    it('answers 404 CUSTOMER_NOT_FOUND for an unknown, another workspace’s or another organization’s customer', async () => {
      const session = await signIn(t, tenant.owner!.email, tenant.owner!.password);
      const sandbox = api.as(session, { 'X-Workspace-Id': 'sandbox' });
      const sandboxCustomer = await sandbox.post('/v1/customers', { name: 'Sandbox only', currency: 'EUR' });
      expect(sandboxCustomer.status).toBe(201);
      const foreignCustomer = await stranger.post('/v1/customers', { name: 'Foreign', currency: 'EUR' });
      expect(foreignCustomer.status).toBe(201);
      for (const id of [randomUUID(), sandboxCustomer.body.id, foreignCustomer.body.id]) {
        const response = await api.post('/v1/wallets', { customer_id: id, currency: 'GBP' });
        expectWalletError(response, 404, 'CUSTOMER_NOT_FOUND');
        expect(response.body.error.param).toBe('customer_id');
      }
      expectWalletFieldError(
        await api.post('/v1/wallets', { customer_id: 'cus_123', currency: 'GBP' }),
        'customer_id',
        'INVALID_VALUE',
      );
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM wallets WHERE currency = 'GBP' AND customer_id = ANY ($1)`,
        [[sandboxCustomer.body.id, foreignCustomer.body.id]],
      );
      expect(count).toBe(0);
    });

    it('refuses invalid currencies, limits and mass-assigned fields with 400, creating nothing', async () => {
      const before = await walletsOf(customer.id);
      const base = { customer_id: customer.id, currency: 'CHF' };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ ...base, currency: 'chf' }, 'currency', 'INVALID_CURRENCY'],
        [{ ...base, currency: 'XXX' }, 'currency', 'INVALID_CURRENCY'],
        [{ ...base, currency: 7 }, 'currency', 'INVALID_TYPE'],
        [{ customer_id: customer.id }, 'currency', 'INVALID_TYPE'],
        [{ ...base, credit_limit: '-1.00' }, 'credit_limit', 'OUT_OF_RANGE'],
        [{ ...base, max_balance: '1.001' }, 'max_balance', 'TOO_PRECISE'],
        [{ ...base, max_single_credit: '1e3' }, 'max_single_credit', 'INVALID_FORMAT'],
        [{ ...base, credit_limit: 5 }, 'credit_limit', 'INVALID_TYPE'],
        [{ ...base, auto_topup_amount: '0.00' }, 'auto_topup_amount', 'OUT_OF_RANGE'],
        [{ ...base, auto_topup_amount: '-5.00' }, 'auto_topup_amount', 'OUT_OF_RANGE'],
        [{ ...base, is_primary: true }, 'is_primary', 'UNKNOWN_PARAMETER'],
        [{ ...base, cash_balance: '100.00' }, 'cash_balance', 'UNKNOWN_PARAMETER'],
        [{ ...base, promotional_balance: '100.00' }, 'promotional_balance', 'UNKNOWN_PARAMETER'],
        [{ ...base, id: randomUUID() }, 'id', 'UNKNOWN_PARAMETER'],
        [{ ...base, workspace_id: foreign.liveWorkspaceId }, 'workspace_id', 'UNKNOWN_PARAMETER'],
        [{ ...base, version: 7 }, 'version', 'UNKNOWN_PARAMETER'],
        [{ ...base, auto_topup_payment_method_id: 'pm_card_visa' }, 'auto_topup_payment_method_id', 'UNKNOWN_PARAMETER'],
      ];
      for (const [body, param, code] of cases) {
        const response = await api.post('/v1/wallets', body);
        expect({ body, param, error: response.body.error?.errors?.[0]?.code }).toEqual({ body, param, error: code });
        expectWalletFieldError(response, param, code);
      }
      const incomplete = await api.post('/v1/wallets', { ...base, auto_topup_enabled: true });
      expectWalletError(incomplete, 422, 'AUTO_TOPUP_INCOMPLETE');
      expect(await walletsOf(customer.id)).toBe(before);
    });

    it('requires an Idempotency-Key and the wallets:write scope', async () => {
      const missing = await api.post('/v1/wallets', { customer_id: customer.id, currency: 'CHF' }, null);
      expectWalletError(missing, 400, 'IDEMPOTENCY_KEY_REQUIRED');
      const reader = await createKey(t, tenant.auth, { name: 'wallet reader', scopes: ['wallets:read'] });
      const readOnly = api.as(`Bearer ${reader.secret}`);
      expect((await readOnly.get(`/v1/wallets/${primary.id}`)).status).toBe(200);
      const refused = await readOnly.post('/v1/wallets', { customer_id: customer.id, currency: 'CHF' });
      expectWalletError(refused, 403, 'INSUFFICIENT_SCOPE');
      expectWalletError(await readOnly.money(primary.id, 'credit', { amount: '1.00' }), 403, 'INSUFFICIENT_SCOPE');
      const customersOnly = await createKey(t, tenant.auth, { name: 'customers only', scopes: ['customers:read'] });
      expectWalletError(await api.as(`Bearer ${customersOnly.secret}`).get('/v1/wallets'), 403, 'INSUFFICIENT_SCOPE');
      expect(await walletsOf(customer.id)).toBe(2);
    });
  });

  describe('GET /v1/wallets (filters, order, cursor)', () => {
    let lister: WalletClient;
    const at: string[] = [];
    const ids: Record<string, string> = {};
    let c1: string;

    beforeAll(async () => {
      const org = await createTenant(t);
      lister = new WalletClient(t, org.auth);
      // w1 EUR primary (c1), w2 USD primary (c2), w3 USD secondary (c1), w4 GBP secondary with auto top-up (c1), w5 JPY primary (c3)
      at.push(clock.now().toISOString());
      const first = await lister.customerWithWallet('EUR', 'List one');
      c1 = first.customer.id;
      ids.w1 = first.wallet.id;
      clock.advance(MINUTE);
      at.push(clock.now().toISOString());
      ids.w2 = (await lister.customerWithWallet('USD', 'List two')).wallet.id;
      clock.advance(MINUTE);
      at.push(clock.now().toISOString());
      const w3 = await lister.post('/v1/wallets', { customer_id: c1, currency: 'USD' });
      expect(w3.status).toBe(201);
      ids.w3 = w3.body.id;
      clock.advance(MINUTE);
      at.push(clock.now().toISOString());
      const w4 = await lister.post('/v1/wallets', {
        customer_id: c1,
        currency: 'GBP',
        auto_topup_enabled: true,
        auto_topup_amount: '20',
        low_balance_threshold: '5',
      });
      expect(w4.status).toBe(201);
      ids.w4 = w4.body.id;
      clock.advance(MINUTE);
      at.push(clock.now().toISOString());
      ids.w5 = (await lister.customerWithWallet('JPY', 'List three')).wallet.id;
      clock.advance(MINUTE);
    });

    async function list(query: string): Promise<string[]> {
      const response = await lister.get(`/v1/wallets${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 200 });
      const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
      return response.body.data.map((wallet: { id: string }) => names[wallet.id] ?? wallet.id);
    }

    it('lists the workspace’s wallets newest first, each in the wallet shape', async () => {
      expect(await list('')).toEqual(['w5', 'w4', 'w3', 'w2', 'w1']);
      const response = await lister.get('/v1/wallets');
      expect(response.body.pagination).toEqual({ cursor: null, has_more: false });
      expect(response.body.data[1]).toEqual(await lister.wallet(ids.w4));
      expect(response.body.data[1].created_at).toBe(at[3]);
    });

    it('filters by customer_id, currency (repeatable or comma-separated), is_primary and auto_topup_enabled, ANDed', async () => {
      expect(await list(`?customer_id=${c1}`)).toEqual(['w4', 'w3', 'w1']);
      expect(await list('?currency=USD&currency=GBP')).toEqual(['w4', 'w3', 'w2']);
      expect(await list('?currency=USD,GBP')).toEqual(['w4', 'w3', 'w2']);
      expect(await list('?currency=JPY')).toEqual(['w5']);
      expect(await list('?is_primary=true')).toEqual(['w5', 'w2', 'w1']);
      expect(await list('?is_primary=false')).toEqual(['w4', 'w3']);
      expect(await list('?auto_topup_enabled=true')).toEqual(['w4']);
      expect(await list('?auto_topup_enabled=false')).toEqual(['w5', 'w3', 'w2', 'w1']);
      expect(await list(`?customer_id=${c1}&currency=USD,EUR&is_primary=false`)).toEqual(['w3']);
      expect(await list(`?customer_id=${randomUUID()}`)).toEqual([]);
    });

    it('filters by created_after (inclusive) and created_before (exclusive)', async () => {
      expect(await list(`?created_after=${at[2]}`)).toEqual(['w5', 'w4', 'w3']);
      expect(await list(`?created_before=${at[2]}`)).toEqual(['w2', 'w1']);
      expect(await list(`?created_after=${at[1]}&created_before=${at[3]}`)).toEqual(['w3', 'w2']);
      expect(await list(`?created_after=${at[1]}&created_before=${at[4]}&currency=USD`)).toEqual(['w3', 'w2']);
    });

    it('pages with a cursor bound to the list and its filters', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await lister.get(`/v1/wallets?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(response.status).toBe(200);
        seen.push(...response.body.data.map((wallet: { id: string }) => wallet.id));
        cursor = response.body.pagination.cursor;
        expect(response.body.pagination.has_more).toBe(cursor !== null);
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([ids.w5, ids.w4, ids.w3, ids.w2, ids.w1]);

      const usd = await lister.get('/v1/wallets?limit=1&currency=USD');
      const next = encodeURIComponent(usd.body.pagination.cursor);
      expect((await lister.get(`/v1/wallets?limit=1&currency=USD&cursor=${next}`)).body.data[0].id).toBe(ids.w2);
      expectWalletError(await lister.get(`/v1/wallets?limit=1&currency=GBP&cursor=${next}`), 400, 'INVALID_CURSOR');
      expectWalletError(await lister.get(`/v1/wallets?limit=1&cursor=${next}`), 400, 'INVALID_CURSOR');
      const transactionsOf = await lister.get(`/v1/wallets/${ids.w1}/transactions?cursor=${next}`);
      expectWalletError(transactionsOf, 400, 'INVALID_CURSOR');
    });

    it('refuses invalid filters and unknown query parameters with 400', async () => {
      expectWalletFieldError(await lister.get('/v1/wallets?is_primary=maybe'), 'is_primary', 'INVALID_TYPE');
      expectWalletFieldError(await lister.get('/v1/wallets?auto_topup_enabled=1'), 'auto_topup_enabled', 'INVALID_TYPE');
      expectWalletError(await lister.get('/v1/wallets?created_after=yesterday'), 400, 'VALIDATION_ERROR');
      expectWalletError(await lister.get('/v1/wallets?created_before=2026-13-45'), 400, 'VALIDATION_ERROR');
      expectWalletError(await lister.get('/v1/wallets?customer_id=nope'), 400, 'VALIDATION_ERROR');
      expectWalletFieldError(await lister.get('/v1/wallets?balance=10'), 'balance', 'UNKNOWN_PARAMETER');
    });

    it('never shows another organization’s wallets', async () => {
      const theirs = await stranger.get('/v1/wallets?limit=200');
      expect(theirs.status).toBe(200);
      const visible = theirs.body.data.map((wallet: { id: string }) => wallet.id);
      for (const id of Object.values(ids)) expect(visible).not.toContain(id);
    });
  });

  describe('PATCH /v1/wallets/{id}', () => {
    let wallet: any;

    beforeAll(async () => {
      ({ wallet } = await api.customerWithWallet('EUR', 'Settings SE'));
    });

    it('updates the limits given, at the currency’s scale, and leaves the rest', async () => {
      clock.advance(MINUTE);
      const response = await api.patch(`/v1/wallets/${wallet.id}`, {
        credit_limit: '15',
        max_balance: '500.5',
        max_single_credit: '100',
        low_balance_threshold: '-2.5',
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...wallet,
        credit_limit: '15.00',
        max_balance: '500.50',
        max_single_credit: '100.00',
        low_balance_threshold: '-2.50',
        updated_at: clock.now().toISOString(),
      });
      expect(await api.wallet(wallet.id)).toEqual(response.body);

      const partial = await api.patch(`/v1/wallets/${wallet.id}`, { max_single_credit: '120.00' });
      expect(partial.body).toEqual({ ...response.body, max_single_credit: '120.00' });
      const cleared = await api.patch(`/v1/wallets/${wallet.id}`, {
        max_balance: null,
        credit_limit: null,
        max_single_credit: null,
      });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ ...partial.body, max_balance: null, credit_limit: '0.00', max_single_credit: null });
    });

    it('turns auto top-up on only with an amount and a threshold: 422 AUTO_TOPUP_INCOMPLETE otherwise', async () => {
      expect(
        (await api.patch(`/v1/wallets/${wallet.id}`, { low_balance_threshold: null })).body.low_balance_threshold,
      ).toBeNull();
      const before = await state(wallet.id);
      expectWalletError(await api.patch(`/v1/wallets/${wallet.id}`, { auto_topup_enabled: true }), 422, 'AUTO_TOPUP_INCOMPLETE');
      expectWalletError(
        await api.patch(`/v1/wallets/${wallet.id}`, { auto_topup_enabled: true, auto_topup_amount: '25' }),
        422,
        'AUTO_TOPUP_INCOMPLETE',
      );
      expect(await state(wallet.id)).toEqual(before);
      const card = await api.post(`/v1/customers/${wallet.customer_id}/payment_methods`, { token: 'pm_card_visa' });
      expect(card.status).toBe(201);
      const enabled = await api.patch(`/v1/wallets/${wallet.id}`, {
        auto_topup_enabled: true,
        auto_topup_amount: '25',
        low_balance_threshold: '5',
        auto_topup_payment_method_id: card.body.id,
      });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toEqual(
        expect.objectContaining({
          auto_topup_enabled: true,
          auto_topup_amount: '25.00',
          low_balance_threshold: '5.00',
          auto_topup_payment_method_id: card.body.id,
        }),
      );
      const disabled = await api.patch(`/v1/wallets/${wallet.id}`, { auto_topup_enabled: false });
      expect(disabled.body).toEqual({ ...enabled.body, auto_topup_enabled: false });
    });

    it('treats currency as an echo-guard: the same passes, another is 400 CURRENCY_MISMATCH and changes nothing', async () => {
      const same = await api.patch(`/v1/wallets/${wallet.id}`, { currency: 'EUR', credit_limit: '1.00' });
      expect(same.status).toBe(200);
      expect(same.body.credit_limit).toBe('1.00');
      const before = await state(wallet.id);
      const other = await api.patch(`/v1/wallets/${wallet.id}`, { currency: 'USD', credit_limit: '2.00' });
      expectWalletError(other, 400, 'CURRENCY_MISMATCH');
      expect(other.body.error.details).toEqual({ wallet_currency: 'EUR', currency: 'USD' });
      expect(await state(wallet.id)).toEqual(before);
    });

    it('refuses invalid limits and mass-assigned fields with 400 and changes nothing', async () => {
      const before = await state(wallet.id);
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ credit_limit: '-1.00' }, 'credit_limit', 'OUT_OF_RANGE'],
        [{ max_balance: '-0.01' }, 'max_balance', 'OUT_OF_RANGE'],
        [{ max_single_credit: '10.001' }, 'max_single_credit', 'TOO_PRECISE'],
        [{ credit_limit: '1e2' }, 'credit_limit', 'INVALID_FORMAT'],
        [{ credit_limit: 100 }, 'credit_limit', 'INVALID_TYPE'],
        [{ auto_topup_amount: '0.00' }, 'auto_topup_amount', 'OUT_OF_RANGE'],
        [{ auto_topup_enabled: 'yes' }, 'auto_topup_enabled', 'INVALID_TYPE'],
        [{ cash_balance: '1000000.00' }, 'cash_balance', 'UNKNOWN_PARAMETER'],
        [{ promotional_balance: '10.00' }, 'promotional_balance', 'UNKNOWN_PARAMETER'],
        [{ held_balance: '0.00' }, 'held_balance', 'UNKNOWN_PARAMETER'],
        [{ available_balance: '10.00' }, 'available_balance', 'UNKNOWN_PARAMETER'],
        [{ id: randomUUID() }, 'id', 'UNKNOWN_PARAMETER'],
        [{ workspace_id: foreign.liveWorkspaceId }, 'workspace_id', 'UNKNOWN_PARAMETER'],
        [{ organization_id: foreign.organization_id }, 'organization_id', 'UNKNOWN_PARAMETER'],
        [{ customer_id: randomUUID() }, 'customer_id', 'UNKNOWN_PARAMETER'],
        [{ version: 99 }, 'version', 'UNKNOWN_PARAMETER'],
        [{ is_primary: false }, 'is_primary', 'UNKNOWN_PARAMETER'],
      ];
      for (const [body, param, code] of cases) {
        const response = await api.patch(`/v1/wallets/${wallet.id}`, body);
        expect({ body, error: response.body.error?.errors?.[0]?.code }).toEqual({ body, error: code });
        expectWalletFieldError(response, param, code);
      }
      expect(await state(wallet.id)).toEqual(before);
    });

    it('answers 404 WALLET_NOT_FOUND for unknown, malformed and foreign ids', async () => {
      for (const id of [randomUUID(), 'not-a-wallet', '12345']) {
        expectWalletError(await api.patch(`/v1/wallets/${id}`, { credit_limit: '1.00' }), 404, 'WALLET_NOT_FOUND');
      }
      const before = await state(wallet.id);
      expectWalletError(await stranger.patch(`/v1/wallets/${wallet.id}`, { credit_limit: '999.00' }), 404, 'WALLET_NOT_FOUND');
      expect(await state(wallet.id)).toEqual(before);
    });
  });

  describe('POST /v1/wallets/{id}/make_primary', () => {
    it('promotes a secondary wallet and demotes the previous primary; an already-primary wallet is a 200 no-op', async () => {
      const { customer, wallet: first } = await api.customerWithWallet('EUR', 'Primary swap');
      const second = (await api.post('/v1/wallets', { customer_id: customer.id, currency: 'USD' })).body;
      clock.advance(MINUTE);
      const promoted = await api.post(`/v1/wallets/${second.id}/make_primary`);
      expect(promoted.status).toBe(200);
      expect(promoted.body).toEqual({ ...second, is_primary: true, updated_at: clock.now().toISOString() });
      expect((await api.wallet(first.id)).is_primary).toBe(false);
      expect(await api.get(`/v1/wallets?customer_id=${customer.id}&is_primary=true`).then((r) => r.body.data)).toEqual([
        promoted.body,
      ]);
      // The customer names its current primary wallet, read and listed alike.
      expect(customer.primary_wallet_id).toBe(first.id);
      const named = { ...customer, primary_wallet_id: second.id };
      expect((await api.get(`/v1/customers/${customer.id}`)).body).toEqual(named);
      expect((await api.get(`/v1/customers?limit=200`)).body.data).toContainEqual(named);

      const before = await state(second.id);
      clock.advance(MINUTE);
      const again = await api.post(`/v1/wallets/${second.id}/make_primary`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(before.wallet);
      expect(await state(second.id)).toEqual(before);

      const back = await api.post(`/v1/wallets/${first.id}/make_primary`);
      expect(back.body.is_primary).toBe(true);
      const rows = await db.query('SELECT id FROM wallets WHERE customer_id = $1 AND is_primary', [customer.id]);
      expect(rows).toEqual([{ id: first.id }]);
    });

    it('keeps exactly one primary per customer under concurrent make_primary calls', async () => {
      const { customer, wallet: eur } = await api.customerWithWallet('EUR', 'Primary race');
      const wallets = [eur.id];
      for (const currency of ['USD', 'GBP', 'CHF']) {
        const created = await api.post('/v1/wallets', { customer_id: customer.id, currency });
        wallets.push(created.body.id);
      }
      for (let round = 0; round < 3; round += 1) {
        const responses = await Promise.all([...wallets, ...wallets].map((id) => api.post(`/v1/wallets/${id}/make_primary`)));
        expect(responses.map((response) => `${response.status} ${response.body.error?.code ?? ''}`)).toEqual(
          responses.map(() => '200 '),
        );
        const primaries = await db.query('SELECT id FROM wallets WHERE customer_id = $1 AND is_primary', [customer.id]);
        expect(primaries).toHaveLength(1);
        const listed = await api.get(`/v1/wallets?customer_id=${customer.id}&is_primary=true`);
        expect(listed.body.data.map((wallet: { id: string }) => wallet.id)).toEqual([primaries[0].id]);
      }
    });

    it('requires an Idempotency-Key and answers 404 for unknown, malformed and foreign wallets', async () => {
      const { wallet } = await api.customerWithWallet('EUR');
      expectWalletError(await api.post(`/v1/wallets/${wallet.id}/make_primary`, {}, null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      for (const id of [randomUUID(), 'nope']) {
        expectWalletError(await api.post(`/v1/wallets/${id}/make_primary`), 404, 'WALLET_NOT_FOUND');
      }
      const theirs = (await stranger.customerWithWallet('EUR')).customer;
      const secondary = await stranger.post('/v1/wallets', { customer_id: theirs.id, currency: 'USD' });
      expectWalletError(await api.post(`/v1/wallets/${secondary.body.id}/make_primary`), 404, 'WALLET_NOT_FOUND');
      expect((await stranger.wallet(secondary.body.id)).is_primary).toBe(false);
    });
  });

  describe('credit, debit and adjust', () => {
    let wallet: any;

    beforeEach(async () => {
      ({ wallet } = await api.customerWithWallet('EUR', 'Money GmbH'));
    });

    it('credits cash: 200 wallet_transaction with every field, and the wallet follows', async () => {
      clock.advance(MINUTE);
      const response = await api.money(wallet.id, 'credit', {
        amount: '25.5',
        source: 'PAYMENT',
        currency: 'EUR',
        reason: 'Bank transfer',
        reference: 'pay_1',
      });
      expect(response.status).toBe(200);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
      expect(Object.keys(response.body)).toEqual(TRANSACTION_FIELDS);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        object: 'wallet_transaction',
        wallet_id: wallet.id,
        type: 'credit',
        source: 'PAYMENT',
        amount: '25.50',
        currency: 'EUR',
        cash_amount: '25.50',
        promotional_amount: '0.00',
        ending_cash_balance: '25.50',
        ending_promotional_balance: '0.00',
        reason: 'Bank transfer',
        reference: 'pay_1',
        transfer_id: null,
        hold_id: null,
        expires_at: null,
        exchange_rate: null,
        funding: null,
        created_by: { type: 'api_key', id: tenant.api_key.id },
        created_at: clock.now().toISOString(),
      });
      expect(await api.wallet(wallet.id)).toEqual({
        ...wallet,
        cash_balance: '25.50',
        available_balance: '25.50',
        updated_at: clock.now().toISOString(),
      });
    });

    it('credits a promotional lot (PROMOTION, optional expires_at; null never expires)', async () => {
      const expiresAt = new Date(clock.now().getTime() + 30 * DAY).toISOString();
      const lot = await api.ok(wallet.id, 'credit', { amount: '5', source: 'PROMOTION', expires_at: expiresAt });
      expect(lot).toEqual(
        expect.objectContaining({
          type: 'credit',
          source: 'PROMOTION',
          amount: '5.00',
          cash_amount: '0.00',
          promotional_amount: '5.00',
          ending_cash_balance: '0.00',
          ending_promotional_balance: '5.00',
          expires_at: expiresAt,
          funding: null,
        }),
      );
      const forever = await api.ok(wallet.id, 'credit', { amount: '2', source: 'PROMOTION', expires_at: null });
      expect(forever).toEqual(expect.objectContaining({ expires_at: null, ending_promotional_balance: '7.00' }));
      const rows = await db.query(
        'SELECT amount::text, remaining::text, expires_at FROM promotional_lots WHERE wallet_id = $1 ORDER BY id',
        [wallet.id],
      );
      expect(rows).toEqual([
        { amount: '5.0000', remaining: '5.0000', expires_at: new Date(expiresAt) },
        { amount: '2.0000', remaining: '2.0000', expires_at: null },
      ]);
      expect(await api.wallet(wallet.id)).toEqual(
        expect.objectContaining({ cash_balance: '0.00', promotional_balance: '7.00', available_balance: '7.00' }),
      );
    });

    it('debits: a negative amount, its funding trace, and the default sources PAYMENT, CHARGE and MANUAL', async () => {
      const credit = await api.ok(wallet.id, 'credit', { amount: '30.00' });
      expect(credit.source).toBe('PAYMENT');
      const debit = await api.ok(wallet.id, 'debit', { amount: '12.34', reason: 'Usage' });
      expect(debit).toEqual(
        expect.objectContaining({
          type: 'debit',
          source: 'CHARGE',
          amount: '-12.34',
          cash_amount: '-12.34',
          promotional_amount: '0.00',
          ending_cash_balance: '17.66',
          ending_promotional_balance: '0.00',
          funding: { promotional_lots: [], cash: '12.34' },
          reason: 'Usage',
          expires_at: null,
        }),
      );
      const adjustment = await api.ok(wallet.id, 'adjust', { amount: '-7.66' });
      expect(adjustment).toEqual(
        expect.objectContaining({
          type: 'adjustment',
          source: 'MANUAL',
          amount: '-7.66',
          cash_amount: '-7.66',
          promotional_amount: '0.00',
          ending_cash_balance: '10.00',
          funding: null,
        }),
      );
      const up = await api.ok(wallet.id, 'adjust', { amount: '2.5', source: 'REFUND', reason: 'Correction' });
      expect(up).toEqual(
        expect.objectContaining({ type: 'adjustment', source: 'REFUND', amount: '2.50', ending_cash_balance: '12.50' }),
      );
      for (const source of ['INVOICE', 'FEE', 'TRANSFER']) {
        expect((await api.ok(wallet.id, 'debit', { amount: '0.50', source })).source).toBe(source);
      }
      expect(await api.wallet(wallet.id)).toEqual(expect.objectContaining({ cash_balance: '11.00', available_balance: '11.00' }));
      expect(await ledgerViolations(db, [wallet.id])).toEqual([]);
    });

    it('draws promotional lots soonest expiry first, then oldest, never-expiring last, then cash; the trace names each lot', async () => {
      const now = clock.now().getTime();
      const in30 = new Date(now + 30 * DAY).toISOString();
      const in10 = new Date(now + 10 * DAY).toISOString();
      await api.ok(wallet.id, 'credit', { amount: '20.00' });
      const promotion = (amount: string, expires_at?: string | null) =>
        api.ok(wallet.id, 'credit', { amount, source: 'PROMOTION', ...(expires_at === undefined ? {} : { expires_at }) });
      await promotion('5.00', in30); // A
      clock.advance(1000);
      await promotion('3.00', in10); // B
      clock.advance(1000);
      await promotion('4.00', null); // C
      clock.advance(1000);
      await promotion('2.00', in10); // D: as soon as B, but younger
      clock.advance(1000);
      await promotion('1.00'); // E: never expires, younger than C
      const [a, b, c, d, e] = await lotIds(wallet.id);

      const first = await api.ok(wallet.id, 'debit', { amount: '4.00' });
      expect(first).toEqual(
        expect.objectContaining({
          amount: '-4.00',
          cash_amount: '0.00',
          promotional_amount: '-4.00',
          ending_cash_balance: '20.00',
          ending_promotional_balance: '11.00',
          funding: {
            promotional_lots: [
              { lot_id: b, amount: '3.00', expires_at: in10 },
              { lot_id: d, amount: '1.00', expires_at: in10 },
            ],
            cash: '0.00',
          },
        }),
      );
      const second = await api.ok(wallet.id, 'debit', { amount: '9.00' });
      expect(second.funding).toEqual({
        promotional_lots: [
          { lot_id: d, amount: '1.00', expires_at: in10 },
          { lot_id: a, amount: '5.00', expires_at: in30 },
          { lot_id: c, amount: '3.00', expires_at: null },
        ],
        cash: '0.00',
      });
      expect(second).toEqual(expect.objectContaining({ ending_cash_balance: '20.00', ending_promotional_balance: '2.00' }));
      const third = await api.ok(wallet.id, 'debit', { amount: '6.00' });
      expect(third).toEqual(
        expect.objectContaining({
          amount: '-6.00',
          cash_amount: '-4.00',
          promotional_amount: '-2.00',
          ending_cash_balance: '16.00',
          ending_promotional_balance: '0.00',
          funding: {
            promotional_lots: [
              { lot_id: c, amount: '1.00', expires_at: null },
              { lot_id: e, amount: '1.00', expires_at: null },
            ],
            cash: '4.00',
          },
        }),
      );
      const remaining = await db.query('SELECT remaining::text FROM promotional_lots WHERE wallet_id = $1', [wallet.id]);
      expect(remaining.map((row: { remaining: string }) => row.remaining)).toEqual([
        '0.0000',
        '0.0000',
        '0.0000',
        '0.0000',
        '0.0000',
      ]);
      // The trace as stored is the trace returned.
      const listed = await api.get(`/v1/wallets/${wallet.id}/transactions?limit=3`);
      expect(listed.body.data).toEqual([third, second, first]);
      expect(await ledgerViolations(db, [wallet.id])).toEqual([]);
    });

    it('never spends an expired lot: it no longer counts towards what may be spent', async () => {
      const start = clock.now().getTime();
      const soon = new Date(start + HOUR).toISOString();
      const later = new Date(start + 2 * DAY).toISOString();
      await api.ok(wallet.id, 'credit', { amount: '5.00', source: 'PROMOTION', expires_at: soon });
      await api.ok(wallet.id, 'credit', { amount: '4.00', source: 'PROMOTION', expires_at: later });
      const [expiring, lasting] = await lotIds(wallet.id);
      await api.ok(wallet.id, 'credit', { amount: '2.00' });
      // One millisecond before its expiry the lot is still spent first.
      clock.set(new Date(start + HOUR - 1));
      const before = await api.ok(wallet.id, 'debit', { amount: '1.00' });
      expect(before.funding.promotional_lots).toEqual([{ lot_id: expiring, amount: '1.00', expires_at: soon }]);

      clock.set(new Date(start + HOUR)); // expires_at reached: expired
      const refused = await api.money(wallet.id, 'debit', { amount: '6.01' });
      const error = expectWalletError(refused, 422, 'INSUFFICIENT_FUNDS');
      expect(error.details).toEqual({ requested: '6.01', spendable: '6.00', currency: 'EUR' });
      const debit = await api.ok(wallet.id, 'debit', { amount: '6.00' });
      expect(debit.funding).toEqual({
        promotional_lots: [{ lot_id: lasting, amount: '4.00', expires_at: later }],
        cash: '2.00',
      });
      expect(debit).toEqual(
        expect.objectContaining({ cash_amount: '-2.00', promotional_amount: '-4.00', ending_cash_balance: '0.00' }),
      );
      expectWalletError(await api.money(wallet.id, 'debit', { amount: '0.01' }), 422, 'INSUFFICIENT_FUNDS');
      expectWalletError(await api.money(wallet.id, 'adjust', { amount: '-0.01' }), 422, 'INSUFFICIENT_FUNDS');
      // The sweeper (a per-minute job, run here by hand) takes the expired remainder out through an expiry line.
      await t.app.get(PromotionalLotExpiry).sweep();
      const [lot] = await db.query('SELECT remaining::text FROM promotional_lots WHERE id = $1', [expiring]);
      expect(lot.remaining).toBe('0.0000');
      const [expiry] = (await api.get(`/v1/wallets/${wallet.id}/transactions?limit=1`)).body.data;
      expect(expiry).toEqual(
        expect.objectContaining({
          type: 'expiry',
          source: null,
          amount: '-4.00',
          cash_amount: '0.00',
          promotional_amount: '-4.00',
          ending_cash_balance: '0.00',
          ending_promotional_balance: '0.00',
          funding: { promotional_lots: [{ lot_id: expiring, amount: '4.00', expires_at: soon }], cash: '0.00' },
          created_by: { type: 'system', id: null },
        }),
      );
      expect(await api.wallet(wallet.id)).toEqual(
        expect.objectContaining({ promotional_balance: '0.00', available_balance: '0.00' }),
      );
      // A promotional credit may not be born expired.
      const past = await api.money(wallet.id, 'credit', { amount: '1.00', source: 'PROMOTION', expires_at: soon });
      expectWalletFieldError(past, 'expires_at', 'OUT_OF_RANGE');
      expect(await ledgerViolations(db, [wallet.id])).toEqual([]);
    });

    it('lets spending reach −credit_limit exactly, and not a cent further', async () => {
      await api.patch(`/v1/wallets/${wallet.id}`, { credit_limit: '25.00' }).then((r) => expect(r.status).toBe(200));
      await api.ok(wallet.id, 'credit', { amount: '10.00' });
      const debit = await api.ok(wallet.id, 'debit', { amount: '35.00' });
      expect(debit).toEqual(
        expect.objectContaining({
          cash_amount: '-35.00',
          ending_cash_balance: '-25.00',
          funding: { promotional_lots: [], cash: '35.00' },
        }),
      );
      expect(await api.wallet(wallet.id)).toEqual(
        expect.objectContaining({ cash_balance: '-25.00', available_balance: '-25.00', credit_limit: '25.00' }),
      );
      const before = await state(wallet.id);
      const refused = expectWalletError(await api.money(wallet.id, 'debit', { amount: '0.01' }), 422, 'INSUFFICIENT_FUNDS');
      expect(refused.details).toEqual({ requested: '0.01', spendable: '0.00', currency: 'EUR' });
      expectWalletError(await api.money(wallet.id, 'adjust', { amount: '-0.01' }), 422, 'INSUFFICIENT_FUNDS');
      expect(await state(wallet.id)).toEqual(before);

      expect((await api.ok(wallet.id, 'credit', { amount: '5.00' })).ending_cash_balance).toBe('-20.00');
      expect((await api.ok(wallet.id, 'adjust', { amount: '-5.00' })).ending_cash_balance).toBe('-25.00');
      expect((await api.ok(wallet.id, 'credit', { amount: '5.00' })).ending_cash_balance).toBe('-20.00');
      // The limit may not be lowered below what is already owed: a refusal, not a server error.
      const lowered = await api.patch(`/v1/wallets/${wallet.id}`, { credit_limit: '19.99' });
      const error = expectWalletError(lowered, 422, 'CREDIT_LIMIT_BELOW_BALANCE');
      expect(error.param).toBe('credit_limit');
      expect((await api.patch(`/v1/wallets/${wallet.id}`, { credit_limit: '20.00' })).status).toBe(200);
      expectWalletError(await api.money(wallet.id, 'debit', { amount: '0.01' }), 422, 'INSUFFICIENT_FUNDS');
      expect(await ledgerViolations(db, [wallet.id])).toEqual([]);
    });

    it('refuses credits above max_single_credit or max_balance with 422 LIMIT_EXCEEDED (details.limit), adjustments too', async () => {
      await api.patch(`/v1/wallets/${wallet.id}`, { max_single_credit: '100.00', max_balance: '150.00' });
      const single = expectWalletError(await api.money(wallet.id, 'credit', { amount: '100.01' }), 422, 'LIMIT_EXCEEDED');
      expect(single.details).toEqual({ limit: 'max_single_credit', value: '100.00' });
      expectWalletError(await api.money(wallet.id, 'credit', { amount: '100.01', source: 'PROMOTION' }), 422, 'LIMIT_EXCEEDED');
      await api.ok(wallet.id, 'credit', { amount: '100.00' });
      await api.ok(wallet.id, 'credit', { amount: '50.00', source: 'PROMOTION' });
      const before = await state(wallet.id);
      for (const [verb, body] of [
        ['credit', { amount: '0.01' }],
        ['credit', { amount: '0.01', source: 'PROMOTION' }],
        ['adjust', { amount: '0.01' }],
      ] as const) {
        const error = expectWalletError(await api.money(wallet.id, verb, body), 422, 'LIMIT_EXCEEDED');
        expect(error.details).toEqual({ limit: 'max_balance', value: '150.00' });
      }
      expect(await state(wallet.id)).toEqual(before);
      await api.ok(wallet.id, 'debit', { amount: '0.01' });
      await api.ok(wallet.id, 'credit', { amount: '0.01' });
    });

    it('refuses amounts that are not decimal strings, too precise, absurd, zero or negative: 400, nothing applied', async () => {
      await api.ok(wallet.id, 'credit', { amount: '50.00' });
      const before = await state(wallet.id);
      const cases: Array<[unknown, string]> = [
        ['1e3', 'INVALID_FORMAT'],
        ['+1', 'INVALID_FORMAT'],
        [10, 'INVALID_TYPE'],
        [null, 'INVALID_TYPE'],
        ['', 'INVALID_FORMAT'],
        ['abc', 'INVALID_FORMAT'],
        ['10.', 'INVALID_FORMAT'],
        ['.5', 'INVALID_FORMAT'],
        [' 10', 'INVALID_FORMAT'],
        ['1,00', 'INVALID_FORMAT'],
        ['０', 'INVALID_FORMAT'],
        ['10.001', 'TOO_PRECISE'],
        ['1.100', 'TOO_PRECISE'],
        ['1234567890123456', 'OUT_OF_RANGE'],
        ['9999999999999999.99', 'OUT_OF_RANGE'],
        ['0', 'OUT_OF_RANGE'],
        ['0.00', 'OUT_OF_RANGE'],
        ['-0', 'OUT_OF_RANGE'],
        ['-5.00', 'OUT_OF_RANGE'],
      ];
      for (const verb of ['credit', 'debit'] as const) {
        for (const [amount, code] of cases) {
          const response = await api.money(wallet.id, verb, { amount });
          expect({ verb, amount, code: response.body.error?.errors?.[0]?.code }).toEqual({ verb, amount, code });
          expectWalletFieldError(response, 'amount', code);
        }
        expectWalletFieldError(await api.money(wallet.id, verb, {}), 'amount', 'INVALID_TYPE');
      }
      for (const [amount, code] of cases.filter(([amount]) => !['0', '0.00', '-0', '-5.00'].includes(String(amount)))) {
        expectWalletFieldError(await api.money(wallet.id, 'adjust', { amount }), 'amount', code);
      }
      expectWalletFieldError(await api.money(wallet.id, 'adjust', { amount: '0.00' }), 'amount', 'OUT_OF_RANGE');
      expectWalletFieldError(await api.money(wallet.id, 'adjust', { amount: '-10.001' }), 'amount', 'TOO_PRECISE');
      // 15 integer digits are accepted (and refused here only by the funds rule).
      expectWalletError(await api.money(wallet.id, 'debit', { amount: '999999999999999.99' }), 422, 'INSUFFICIENT_FUNDS');
      expect(await state(wallet.id)).toEqual(before);
    });

    it('refuses unknown sources, misplaced expires_at, wrong currencies and unknown fields: 400, nothing applied', async () => {
      await api.ok(wallet.id, 'credit', { amount: '50.00' });
      const before = await state(wallet.id);
      const future = new Date(clock.now().getTime() + DAY).toISOString();
      for (const verb of ['credit', 'debit', 'adjust'] as const) {
        expectWalletFieldError(await api.money(wallet.id, verb, { amount: '1.00', source: 'GIFT' }), 'source', 'INVALID_VALUE');
        expectWalletFieldError(
          await api.money(wallet.id, verb, { amount: '1.00', source: 'payment' }),
          'source',
          'INVALID_VALUE',
        );
        const mismatch = await api.money(wallet.id, verb, { amount: '1.00', currency: 'USD' });
        expectWalletError(mismatch, 400, 'CURRENCY_MISMATCH');
        expect(mismatch.body.error.details).toEqual({ wallet_currency: 'EUR', currency: 'USD' });
        expectWalletError(await api.money(wallet.id, verb, { amount: '1.00', currency: 'eur' }), 400, 'CURRENCY_MISMATCH');
        for (const field of ['cash_balance', 'id', 'workspace_id', 'version', 'wallet_id', 'type', 'created_by', 'funding']) {
          const response = await api.money(wallet.id, verb, { amount: '1.00', [field]: field === 'version' ? 3 : 'x' });
          expectWalletFieldError(response, field, 'UNKNOWN_PARAMETER');
        }
        expectWalletFieldError(
          await api.money(wallet.id, verb, { amount: '1.00', reason: 'r'.repeat(501) }),
          'reason',
          'OUT_OF_RANGE',
        );
        expectWalletFieldError(
          await api.money(wallet.id, verb, { amount: '1.00', reference: 'x'.repeat(256) }),
          'reference',
          'OUT_OF_RANGE',
        );
        expectWalletError(await api.money(wallet.id, verb, { amount: '1.00' }, ''), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      }
      for (const source of ['PAYMENT', 'REFUND', 'MANUAL']) {
        const misplaced = await api.money(wallet.id, 'credit', { amount: '1.00', source, expires_at: future });
        expectWalletFieldError(misplaced, 'expires_at', 'NOT_ALLOWED');
      }
      expectWalletFieldError(
        await api.money(wallet.id, 'credit', { amount: '1.00', expires_at: future }),
        'expires_at',
        'NOT_ALLOWED',
      );
      expectWalletError(
        await api.money(wallet.id, 'credit', { amount: '1.00', source: 'PROMOTION', expires_at: 'next week' }),
        400,
        'VALIDATION_ERROR',
      );
      for (const verb of ['debit', 'adjust'] as const) {
        expectWalletFieldError(
          await api.money(wallet.id, verb, { amount: '1.00', expires_at: future }),
          'expires_at',
          'UNKNOWN_PARAMETER',
        );
      }
      const missingKey = await api.post(`/v1/wallets/${wallet.id}/credit`, { amount: '1.00' }, null);
      expectWalletError(missingKey, 400, 'IDEMPOTENCY_KEY_REQUIRED');
      expect(await state(wallet.id)).toEqual(before);
    });

    it('answers 404 WALLET_NOT_FOUND on every wallet route for unknown, malformed, other-workspace and other-organization ids', async () => {
      await api.ok(wallet.id, 'credit', { amount: '50.00' });
      const before = await state(wallet.id);
      const session = await signIn(t, tenant.owner!.email, tenant.owner!.password);
      const sandbox = api.as(session, { 'X-Workspace-Id': 'sandbox' });
      const callers: Array<[string, WalletClient, string]> = [
        ['unknown', api, randomUUID()],
        ['malformed', api, 'wal_123'],
        ['sql-ish', api, "1' OR '1'='1"],
        ['other workspace', sandbox, wallet.id],
        ['other organization', stranger, wallet.id],
      ];
      for (const [label, caller, id] of callers) {
        const path = `/v1/wallets/${encodeURIComponent(id)}`;
        const responses: Array<[string, request.Response]> = [
          ['GET', await caller.get(path)],
          ['PATCH', await caller.patch(path, { credit_limit: '1000.00' })],
          ['transactions', await caller.get(`${path}/transactions`)],
          ['make_primary', await caller.post(`${path}/make_primary`)],
          ['credit', await caller.post(`${path}/credit`, { amount: '1.00' })],
          ['debit', await caller.post(`${path}/debit`, { amount: '1.00' })],
          ['adjust', await caller.post(`${path}/adjust`, { amount: '-1.00' })],
        ];
        for (const [route, response] of responses) {
          expect({ label, route, status: response.status, code: response.body.error?.code }).toEqual({
            label,
            route,
            status: 404,
            code: 'WALLET_NOT_FOUND',
          });
        }
      }
      expect(await state(wallet.id)).toEqual(before);
    });
  });

  describe('(source, reference) replays and Idempotency-Key', () => {
    let wallet: any;
    let other: any;

    beforeAll(async () => {
      ({ wallet } = await api.customerWithWallet('EUR', 'Replay Ltd'));
      ({ wallet: other } = await api.customerWithWallet('EUR', 'Replay Other'));
      await api.ok(wallet.id, 'credit', { amount: '100.00' });
    });

    it('replays a repeated (source, reference) under a new Idempotency-Key: the original bytes, Idempotent-Replayed, nothing changed', async () => {
      const body = { amount: '10.00', source: 'PAYMENT', reference: 'inv-1', reason: 'Invoice 1' };
      const original = await api.money(wallet.id, 'credit', body);
      expect(original.status).toBe(200);
      expect(original.headers['idempotent-replayed']).toBeUndefined();
      const after = await state(wallet.id);
      clock.advance(MINUTE);

      const again = await api.money(wallet.id, 'credit', body);
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(original.text);
      // Another reason under the same (source, reference) is still the original operation.
      const reworded = await api.money(wallet.id, 'credit', { ...body, reason: 'changed' });
      expect(reworded.status).toBe(200);
      expect(reworded.headers['idempotent-replayed']).toBe('true');
      expect(reworded.text).toBe(original.text);
      // Another principal of the workspace gets the same replay.
      const writer = await createKey(t, tenant.auth, { name: 'replayer', scopes: ['wallets:write', 'wallets:read'] });
      const theirs = await api.as(`Bearer ${writer.secret}`).money(wallet.id, 'credit', body);
      expect(theirs.headers['idempotent-replayed']).toBe('true');
      expect(theirs.text).toBe(original.text);
      expect(await state(wallet.id)).toEqual(after);
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM wallet_transactions WHERE wallet_id = $1 AND reference = 'inv-1'`,
        [wallet.id],
      );
      expect(count).toBe(1);
    });

    it('replays debits and adjustments too, even where the balance could no longer cover them', async () => {
      const { wallet: drained } = await api.customerWithWallet('EUR', 'Replay Drained');
      await api.ok(drained.id, 'credit', { amount: '4.00' });
      const debit = await api.money(drained.id, 'debit', { amount: '3.00', reference: 'order-1' });
      expect(debit.status).toBe(200);
      const adjust = await api.money(drained.id, 'adjust', { amount: '-1.00', reference: 'fix-1' });
      expect(adjust.status).toBe(200);
      const after = await state(drained.id);
      expect(after.wallet.available_balance).toBe('0.00');
      const debitAgain = await api.money(drained.id, 'debit', { amount: '3.00', reference: 'order-1' });
      expect([debitAgain.status, debitAgain.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect(debitAgain.text).toBe(debit.text);
      const adjustAgain = await api.money(drained.id, 'adjust', { amount: '-1.00', reference: 'fix-1' });
      expect([adjustAgain.status, adjustAgain.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect(adjustAgain.text).toBe(adjust.text);
      expect(await state(drained.id)).toEqual(after);
    });

    it('replays only the same operation, amount and currency: anything else is 409 REFERENCE_ALREADY_USED naming the original', async () => {
      const { wallet: target } = await api.customerWithWallet('EUR', 'Replay Mismatch');
      const credit = await api.money(target.id, 'credit', { amount: '50.00', source: 'PAYMENT', reference: 'pay-9' });
      expect(credit.status).toBe(200);
      const debit = await api.money(target.id, 'debit', { amount: '7.00', source: 'CHARGE', reference: 'use-9' });
      expect(debit.status).toBe(200);
      const after = await state(target.id);
      const refusals = [
        // The issue's case: a debit reusing a credit's (source, reference) debited nothing and answered the credit.
        [api.money(target.id, 'debit', { amount: '20.00', source: 'PAYMENT', reference: 'pay-9' }), credit.body.id],
        [api.money(target.id, 'credit', { amount: '51.00', source: 'PAYMENT', reference: 'pay-9' }), credit.body.id],
        [api.money(target.id, 'adjust', { amount: '50.00', source: 'PAYMENT', reference: 'pay-9' }), credit.body.id],
        [api.money(target.id, 'debit', { amount: '7.01', source: 'CHARGE', reference: 'use-9' }), debit.body.id],
        [api.money(target.id, 'credit', { amount: '7.00', source: 'CHARGE', reference: 'use-9' }), debit.body.id],
      ] as const;
      for (const [pending, transactionId] of refusals) {
        const response = await pending;
        const error = expectWalletError(response, 409, 'REFERENCE_ALREADY_USED');
        expect(error.details).toEqual({ transaction_id: transactionId });
        expect(response.headers['idempotent-replayed']).toBeUndefined();
      }
      expect(await state(target.id)).toEqual(after);
      // The very same operation still replays.
      const again = await api.money(target.id, 'debit', {
        amount: '7.00',
        currency: 'EUR',
        source: 'CHARGE',
        reference: 'use-9',
      });
      expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([200, 'true', debit.text]);
    });

    it('treats the same reference with another source, or on another wallet, as a new operation', async () => {
      await api.ok(wallet.id, 'credit', { amount: '1.00', source: 'PAYMENT', reference: 'shared-ref' });
      const refund = await api.money(wallet.id, 'credit', { amount: '2.00', source: 'REFUND', reference: 'shared-ref' });
      expect([refund.status, refund.headers['idempotent-replayed'], refund.body.amount]).toEqual([200, undefined, '2.00']);
      const elsewhere = await api.money(other.id, 'credit', { amount: '1.00', source: 'PAYMENT', reference: 'shared-ref' });
      expect([elsewhere.status, elsewhere.headers['idempotent-replayed'], elsewhere.body.wallet_id]).toEqual([
        200,
        undefined,
        other.id,
      ]);
      const rows = await db.query(`SELECT wallet_id, source FROM wallet_transactions WHERE reference = 'shared-ref' ORDER BY id`);
      expect(rows).toEqual([
        { wallet_id: wallet.id, source: 'PAYMENT' },
        { wallet_id: wallet.id, source: 'REFUND' },
        { wallet_id: other.id, source: 'PAYMENT' },
      ]);
    });

    it('replays a repeated Idempotency-Key byte for byte, and refuses it with another body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = idem();
      const first = await api.money(wallet.id, 'credit', { amount: '4.00' }, key);
      expect(first.status).toBe(200);
      const after = await state(wallet.id);
      const again = await api.money(wallet.id, 'credit', { amount: '4.00' }, key);
      expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([200, 'true', first.text]);
      expectWalletError(await api.money(wallet.id, 'credit', { amount: '5.00' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
      // A refusal is stored too: replaying its key answers the same refusal without acting again.
      const refusedKey = idem();
      const refused = await api.money(wallet.id, 'debit', { amount: '100000.00' }, refusedKey);
      expectWalletError(refused, 422, 'INSUFFICIENT_FUNDS');
      const refusedAgain = await api.money(wallet.id, 'debit', { amount: '100000.00' }, refusedKey);
      expect([refusedAgain.status, refusedAgain.headers['idempotent-replayed'], refusedAgain.text]).toEqual([
        422,
        'true',
        refused.text,
      ]);
      expect(await state(wallet.id)).toEqual(after);
    });

    it('acts once for 20 parallel requests with one Idempotency-Key (the others replay or are IN_USE)', async () => {
      const key = idem();
      const before = await ledgerLines(wallet.id);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => api.money(wallet.id, 'credit', { amount: '0.25', reason: 'parallel' }, key)),
      );
      const ok = responses.filter((response) => response.status === 200);
      for (const response of responses.filter((r) => r.status !== 200))
        expectWalletError(response, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ok.map((response) => response.text)).size).toBe(1);
      expect(ok.filter((response) => response.headers['idempotent-replayed'] === undefined).length).toBeLessThanOrEqual(1);
      expect(await ledgerLines(wallet.id)).toBe(before + 1);
    });
  });

  describe('adjustments that need a human approval', () => {
    let org: TestTenant;
    let robot: WalletClient;
    let owner: WalletClient;
    let approver: WalletClient;
    let wallet: any;

    beforeAll(async () => {
      org = await createTenant(t, { withOwner: true });
      robot = new WalletClient(t, org.auth);
      owner = robot.as(await signIn(t, org.owner!.email, org.owner!.password));
      const email = `approver-${randomUUID().slice(0, 8)}@example.com`;
      const user = await owner.post('/v1/users', { email, password: 'approver password 1', role: 'admin' });
      expect(user.status).toBe(201);
      approver = robot.as(await signIn(t, email, 'approver password 1'));
      ({ wallet } = await robot.customerWithWallet('EUR', 'Approval GmbH'));
      await robot.ok(wallet.id, 'credit', { amount: '50.00' });
      // Without the setting an adjustment applies at once, for a key and for a human.
      expect((await robot.ok(wallet.id, 'adjust', { amount: '1.00' })).amount).toBe('1.00');
      expect((await owner.ok(wallet.id, 'adjust', { amount: '-1.00' })).created_by).toEqual({ type: 'user', id: org.user_id });
      const patched = await robot.patch(`/v1/workspaces/${org.liveWorkspaceId}`, {
        settings: { approval_required_for: ['wallet.adjust'] },
      });
      expect(patched.status).toBe(200);
    });

    async function approvals(): Promise<number> {
      const [{ count }] = await db.query('SELECT count(*)::int AS count FROM approval_requests WHERE organization_id = $1', [
        org.organization_id,
      ]);
      return count;
    }

    it('refuses an API key: 409 APPROVAL_REQUIRED_HUMAN, nothing held or applied; credits and debits are not checkpointed', async () => {
      const before = await state(wallet.id, robot);
      const held = await approvals();
      const response = await robot.money(wallet.id, 'adjust', { amount: '-5.00' });
      const error = expectWalletError(response, 409, 'APPROVAL_REQUIRED_HUMAN');
      expect(error.details).toEqual({ checkpoint: 'wallet.adjust' });
      expect(await state(wallet.id, robot)).toEqual(before);
      expect(await approvals()).toBe(held);
      expect((await robot.ok(wallet.id, 'credit', { amount: '1.00' })).type).toBe('credit');
      expect((await robot.ok(wallet.id, 'debit', { amount: '1.00' })).type).toBe('debit');
    });

    it('holds a human’s adjustment (202 + Location), and a second human’s approval applies it once', async () => {
      const before = await state(wallet.id, robot);
      const body = { amount: '-20.00', reason: 'Goodwill', reference: 'adj-1' };
      const held = await owner.money(wallet.id, 'adjust', body);
      expect(held.status).toBe(202);
      expect(held.body).toEqual({
        object: 'approval_request',
        status: 'pending_approval',
        approval: { id: expect.stringMatching(UUID), status: 'pending', checkpoint: 'wallet.adjust' },
      });
      const approvalId = held.body.approval.id;
      expect(held.headers.location).toBe(`/v1/approvals/${approvalId}`);
      expect(await state(wallet.id, robot)).toEqual(before);
      const pending = await owner.get(held.headers.location);
      expect(pending.body).toEqual(expect.objectContaining({ status: 'pending', checkpoint: 'wallet.adjust', result: null }));

      expectWalletError(await owner.post(`/v1/approvals/${approvalId}/approve`), 403, 'SELF_APPROVAL_FORBIDDEN');
      expectWalletError(await robot.post(`/v1/approvals/${approvalId}/approve`), 403, 'HUMAN_SESSION_REQUIRED');
      expect(await state(wallet.id, robot)).toEqual(before);

      clock.advance(MINUTE);
      const approved = await approver.post(`/v1/approvals/${approvalId}/approve`, { reason: 'ok' });
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe('approved');
      const decided = await approver.get(`/v1/approvals/${approvalId}`);
      const transaction = decided.body.result.response;
      expect(decided.body.result.outcome).toBe('succeeded');
      expect(transaction).toEqual(
        expect.objectContaining({
          object: 'wallet_transaction',
          wallet_id: wallet.id,
          type: 'adjustment',
          source: 'MANUAL',
          amount: '-20.00',
          cash_amount: '-20.00',
          ending_cash_balance: new Big(before.wallet.cash_balance).minus(20).toFixed(2),
          reason: 'Goodwill',
          reference: 'adj-1',
          created_by: { type: 'user', id: org.user_id },
          created_at: clock.now().toISOString(),
        }),
      );
      const listed = await owner.get(`/v1/wallets/${wallet.id}/transactions?limit=1`);
      expect(listed.body.data).toEqual([transaction]);
      expect((await owner.wallet(wallet.id)).cash_balance).toBe(transaction.ending_cash_balance);
      expectWalletError(await approver.post(`/v1/approvals/${approvalId}/approve`), 409, 'INVALID_STATUS_TRANSITION');

      // The same (source, reference) again: the original transaction, nothing held, nothing applied.
      const after = await state(wallet.id, robot);
      const held2 = await approvals();
      const replay = await owner.money(wallet.id, 'adjust', body);
      expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect(replay.body).toEqual(transaction);
      expect(await approvals()).toBe(held2);
      expect(await state(wallet.id, robot)).toEqual(after);
    });

    it('records a failed approval when the held adjustment can no longer be covered; a rejection applies nothing', async () => {
      const before = await state(wallet.id, robot);
      const tooMuch = await owner.money(wallet.id, 'adjust', { amount: '-1000.00' });
      expect(tooMuch.status).toBe(202);
      const failed = await approver.post(`/v1/approvals/${tooMuch.body.approval.id}/approve`);
      expect(failed.status).toBe(200);
      expect(failed.body.status).toBe('failed');
      expect(failed.body.result).toEqual({
        outcome: 'failed',
        error: expect.objectContaining({ code: 'INSUFFICIENT_FUNDS' }),
      });
      const rejectedHold = await owner.money(wallet.id, 'adjust', { amount: '5.00' });
      const rejected = await approver.post(`/v1/approvals/${rejectedHold.body.approval.id}/reject`, { reason: 'no' });
      expect([rejected.status, rejected.body.status, rejected.body.result]).toEqual([200, 'rejected', null]);
      expect(await state(wallet.id, robot)).toEqual(before);
    });

    it('checks the wallet and the request before holding: 404 and 400 come first, and nothing is held', async () => {
      const before = await approvals();
      const theirs = (await stranger.customerWithWallet('EUR')).wallet;
      for (const id of [randomUUID(), 'nope', theirs.id]) {
        expectWalletError(await owner.money(id, 'adjust', { amount: '-1.00' }), 404, 'WALLET_NOT_FOUND');
        expectWalletError(await robot.money(id, 'adjust', { amount: '-1.00' }), 404, 'WALLET_NOT_FOUND');
      }
      expectWalletFieldError(await owner.money(wallet.id, 'adjust', { amount: '1e3' }), 'amount', 'INVALID_FORMAT');
      expectWalletFieldError(await owner.money(wallet.id, 'adjust', { amount: '0' }), 'amount', 'OUT_OF_RANGE');
      expectWalletError(await owner.money(wallet.id, 'adjust', { amount: '1.00', currency: 'USD' }), 400, 'CURRENCY_MISMATCH');
      expectWalletFieldError(
        await owner.money(wallet.id, 'adjust', { amount: '1.00', source: 'GIFT' }),
        'source',
        'INVALID_VALUE',
      );
      expect(await approvals()).toBe(before);
    });
  });

  describe('sandbox and live workspaces', () => {
    let sandbox: WalletClient;
    let session: string;
    let live: any;
    let test: any;

    beforeAll(async () => {
      session = await signIn(t, tenant.owner!.email, tenant.owner!.password);
      const key = await createKey(
        t,
        session,
        { name: 'sandbox wallets', scopes: ['customers:read', 'customers:write', 'wallets:read', 'wallets:write'] },
        { 'X-Workspace-Id': 'sandbox' },
      );
      expect(key.secret).toMatch(/^sk_test_/);
      sandbox = new WalletClient(t, `Bearer ${key.secret}`);
      ({ wallet: live } = await api.customerWithWallet('EUR', 'Live customer'));
      ({ wallet: test } = await sandbox.customerWithWallet('EUR', 'Sandbox customer'));
    });

    it('keeps each workspace’s wallets, balances and references apart', async () => {
      const inSandbox = await sandbox.ok(test.id, 'credit', { amount: '7.00', reference: 'same-ref' });
      const inLive = await api.money(live.id, 'credit', { amount: '3.00', reference: 'same-ref' });
      expect([inLive.status, inLive.headers['idempotent-replayed']]).toEqual([200, undefined]);
      expect(inLive.body.id).not.toBe(inSandbox.id);
      expect((await sandbox.wallet(test.id)).cash_balance).toBe('7.00');
      expect((await api.wallet(live.id)).cash_balance).toBe('3.00');
      const [row] = await db.query('SELECT workspace_id FROM wallets WHERE id = $1', [test.id]);
      expect(row.workspace_id).toBe(tenant.sandboxWorkspaceId);

      const liveList = (await api.get('/v1/wallets?limit=200')).body.data.map((w: { id: string }) => w.id);
      const sandboxList = (await sandbox.get('/v1/wallets?limit=200')).body.data.map((w: { id: string }) => w.id);
      expect(liveList).toContain(live.id);
      expect(liveList).not.toContain(test.id);
      expect(sandboxList).toContain(test.id);
      expect(sandboxList).not.toContain(live.id);

      expectWalletError(await sandbox.get(`/v1/wallets/${live.id}`), 404, 'WALLET_NOT_FOUND');
      expectWalletError(await sandbox.money(live.id, 'debit', { amount: '1.00' }), 404, 'WALLET_NOT_FOUND');
      expectWalletError(await api.get(`/v1/wallets/${test.id}`), 404, 'WALLET_NOT_FOUND');
      expectWalletError(await api.money(test.id, 'debit', { amount: '1.00' }), 404, 'WALLET_NOT_FOUND');
      expectWalletError(await api.get(`/v1/wallets/${test.id}/transactions`), 404, 'WALLET_NOT_FOUND');
      expectWalletError(
        await api.as(tenant.auth, { 'X-Workspace-Id': 'sandbox' }).get('/v1/wallets'),
        403,
        'WORKSPACE_MODE_MISMATCH',
      );
      const human = api.as(session, { 'X-Workspace-Id': 'sandbox' });
      expect((await human.wallet(test.id)).cash_balance).toBe('7.00');
      const customer = (await sandbox.wallet(test.id)).customer_id;
      expectWalletError(await api.post('/v1/wallets', { customer_id: customer, currency: 'USD' }), 404, 'CUSTOMER_NOT_FOUND');
      expect((await sandbox.wallet(test.id)).cash_balance).toBe('7.00');
      expect((await api.wallet(live.id)).cash_balance).toBe('3.00');
    });
  });

  describe('GET /v1/wallets/{id}/transactions', () => {
    it('lists the ledger newest first, as the operations answered, with a cursor bound to the wallet', async () => {
      const { wallet } = await api.customerWithWallet('EUR', 'Ledger reader');
      const { wallet: other } = await api.customerWithWallet('EUR', 'Ledger other');
      const answers = [];
      answers.push(await api.ok(wallet.id, 'credit', { amount: '40.00' }));
      clock.advance(1000);
      answers.push(
        await api.ok(wallet.id, 'credit', {
          amount: '5.00',
          source: 'PROMOTION',
          expires_at: new Date(clock.now().getTime() + DAY).toISOString(),
        }),
      );
      answers.push(await api.ok(wallet.id, 'debit', { amount: '7.00' }));
      clock.advance(1000);
      answers.push(await api.ok(wallet.id, 'adjust', { amount: '-3.00' }));
      answers.push(await api.ok(wallet.id, 'debit', { amount: '1.00', reference: 'r-1' }));
      const all = await api.get(`/v1/wallets/${wallet.id}/transactions`);
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ data: [...answers].reverse(), pagination: { cursor: null, has_more: false } });

      const paged = [];
      let cursor: string | null = null;
      do {
        const page: request.Response = await api.get(
          `/v1/wallets/${wallet.id}/transactions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        paged.push(...page.body.data);
        cursor = page.body.pagination.cursor;
      } while (cursor);
      expect(paged).toEqual(all.body.data);

      const first = await api.get(`/v1/wallets/${wallet.id}/transactions?limit=2`);
      const foreignCursor = await api.get(
        `/v1/wallets/${other.id}/transactions?cursor=${encodeURIComponent(first.body.pagination.cursor)}`,
      );
      expectWalletError(foreignCursor, 400, 'INVALID_CURSOR');
      expectWalletFieldError(await api.get(`/v1/wallets/${wallet.id}/transactions?type=debit`), 'type', 'UNKNOWN_PARAMETER');
      expect((await api.get(`/v1/wallets/${other.id}/transactions`)).body.data).toEqual([]);
    });
  });

  describe('the ledger', () => {
    it('balances after a mix of operations: Σ amounts = cash + promotional, and ending balances chain', async () => {
      const { wallet } = await api.customerWithWallet('EUR', 'Ledger mix');
      await api.patch(`/v1/wallets/${wallet.id}`, { credit_limit: '10.00' });
      const now = clock.now().getTime();
      await api.ok(wallet.id, 'credit', { amount: '20.00' });
      await api.ok(wallet.id, 'credit', { amount: '6.00', source: 'PROMOTION', expires_at: new Date(now + HOUR).toISOString() });
      await api.ok(wallet.id, 'credit', { amount: '4.00', source: 'PROMOTION' });
      await api.ok(wallet.id, 'debit', { amount: '3.00' }); // from the lot expiring in an hour
      await api.ok(wallet.id, 'adjust', { amount: '-2.50' });
      clock.advance(HOUR); // 3.00 of promotional credit expire, unspent
      await api.ok(wallet.id, 'debit', { amount: '25.00' }); // 4.00 promotional, 21.00 cash: cash −3.50
      await api.ok(wallet.id, 'adjust', { amount: '1.25', source: 'REFUND' });
      expectWalletError(await api.money(wallet.id, 'debit', { amount: '100.00' }), 422, 'INSUFFICIENT_FUNDS');
      await api.ok(wallet.id, 'credit', { amount: '1.00', reference: 'mix-1' });
      expect((await api.money(wallet.id, 'credit', { amount: '1.00', reference: 'mix-1' })).headers['idempotent-replayed']).toBe(
        'true',
      );
      await t.app.get(PromotionalLotExpiry).sweep(); // the 3.00 left on the expired lot leave through an expiry line

      const [sums] = await db.query(
        `SELECT w.cash_balance::text AS cash, w.promotional_balance::text AS promotional,
                (SELECT sum(amount) FROM wallet_transactions t WHERE t.organization_id = w.organization_id AND t.wallet_id = w.id)::text AS total,
                (SELECT sum(cash_amount) FROM wallet_transactions t WHERE t.organization_id = w.organization_id AND t.wallet_id = w.id)::text AS cash_total,
                (SELECT sum(promotional_amount) FROM wallet_transactions t WHERE t.organization_id = w.organization_id AND t.wallet_id = w.id)::text AS promotional_total,
                (SELECT count(*) FROM wallet_transactions t WHERE t.organization_id = w.organization_id AND t.wallet_id = w.id)::int AS lines
           FROM wallets w WHERE w.id = $1`,
        [wallet.id],
      );
      expect(sums).toEqual({
        cash: '-1.2500',
        promotional: '0.0000',
        total: '-1.2500',
        cash_total: '-1.2500',
        promotional_total: '0.0000',
        lines: 9,
      });
      const chain = await db.query(
        `SELECT ending_cash_balance - cash_amount - COALESCE(lag(ending_cash_balance) OVER w, 0) AS cash_gap,
                ending_promotional_balance - promotional_amount - COALESCE(lag(ending_promotional_balance) OVER w, 0) AS promotional_gap
           FROM wallet_transactions WHERE wallet_id = $1 WINDOW w AS (ORDER BY id)`,
        [wallet.id],
      );
      expect(chain).toHaveLength(9);
      for (const gap of chain) expect([Number(gap.cash_gap), Number(gap.promotional_gap)]).toEqual([0, 0]);
      const shown = await api.wallet(wallet.id);
      expect(shown).toEqual(
        expect.objectContaining({ cash_balance: '-1.25', promotional_balance: '0.00', available_balance: '-1.25' }),
      );
    });

    it('balances for every wallet this file touched', async () => {
      expect(await ledgerViolations(db)).toEqual([]);
      const [{ wallets, lines }] = await db.query(
        'SELECT (SELECT count(*) FROM wallets)::int AS wallets, (SELECT count(*) FROM wallet_transactions)::int AS lines',
      );
      expect(wallets).toBeGreaterThan(10);
      expect(lines).toBeGreaterThan(50);
    });
  });
});
