import {
  BAD_INPUT_RUNS,
  BadInputRoute,
  badInputSeed,
  Ids,
  expectEveryDefectRefused,
  expectRespelledPathsReplayed,
  nonArray,
  nonString,
} from '../support/bad-input';
import fc from 'fast-check';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { WalletClient } from '../support/wallet-helpers';

/**
 * R8 for the wallet context: every wallet write route gets valid requests spoiled by exactly
 * one defect the contract refuses (see test/support/bad-input.ts). Each must be answered 4xx
 * with the contract's error body, and the tables must end as they began. The seed is printed;
 * SEED=<n> replays a run, BAD_INPUT_RUNS=<n> sizes it.
 */
const seed = badInputSeed();

/** What a wallet write must leave untouched (columns listed are ignored); idempotency records may keep a handler's 4xx. */
const TABLES: Record<string, string[]> = Object.fromEntries(
  [
    'wallets',
    'wallet_transactions',
    'promotional_lots',
    'wallet_holds',
    'wallet_transfers',
    'fx_clearing_entries',
    'fx_rates',
    'wallet_top_ups',
    'payment_methods',
    'customers',
    'audit_events',
    'approval_requests',
    'outbox_events',
  ].map((table) => [table, []]),
);

const ROUTES: BadInputRoute[] = [
  {
    name: 'credit',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/credit`,
    body: () => ({
      amount: '10.00',
      currency: 'EUR',
      source: 'PROMOTION',
      reason: 'goodwill',
      expires_at: '2099-01-01T00:00:00Z',
    }),
    amounts: [{ field: 'amount', kind: 'positive' }],
    takesIds: true,
  },
  {
    name: 'debit',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/debit`,
    body: () => ({ amount: '1.00', currency: 'EUR', source: 'CHARGE', reason: 'usage' }),
    amounts: [{ field: 'amount', kind: 'positive' }],
    takesIds: true,
  },
  {
    // Atomic, so that an item's refusal (another tenant's wallet, a bad amount) refuses the request (422 BATCH_REJECTED).
    name: 'batch debits',
    method: 'post',
    path: () => '/v1/wallet_debits',
    body: (ids) => ({
      debits: [
        { wallet_id: ids.wallet, amount: '1.00', currency: 'EUR', source: 'CHARGE', reason: 'usage' },
        { wallet_id: ids.wallet, amount: '0.50' },
      ],
      atomic: true,
    }),
    amounts: [
      { field: 'debits.0.amount', kind: 'positive' },
      { field: 'debits.1.amount', kind: 'positive' },
    ],
    takesIds: true,
    wrongTypes: {
      debits: nonArray,
      atomic: fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.array(fc.boolean(), { maxLength: 2 })),
      'debits.0.amount': nonString,
      'debits.0.currency': nonString,
      'debits.0.source': nonString,
      'debits.0.reason': nonString,
      'debits.1.wallet_id': nonString,
    },
  },
  {
    name: 'adjust',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/adjust`,
    body: () => ({ amount: '-1.00', currency: 'EUR', reason: 'correction' }),
    amounts: [{ field: 'amount', kind: 'signed' }],
    takesIds: true,
  },
  {
    name: 'hold',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/holds`,
    body: () => ({
      amount: '1.00',
      currency: 'EUR',
      expires_at: '2099-01-01T00:00:00Z',
      reason: 'authorization',
      reference_id: 'inv_1',
      reference_type: 'invoice',
      tax_rate: '0.19',
    }),
    amounts: [{ field: 'amount', kind: 'positive' }],
    takesIds: true,
  },
  {
    name: 'capture',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/holds/${ids.hold}/capture`,
    body: () => ({ amount: '1.00' }),
    amounts: [{ field: 'amount', kind: 'positive' }],
    takesIds: true,
  },
  {
    name: 'release',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/holds/${ids.hold}/release`,
    body: () => ({}),
    amounts: [],
    takesIds: true,
  },
  {
    name: 'transfer',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/transfer`,
    body: (ids) => ({ amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: ids.other, reason: 'move' }),
    amounts: [{ field: 'amount.value', kind: 'positive' }],
    takesIds: true,
  },
  {
    name: 'settings',
    method: 'patch',
    path: (ids) => `/v1/wallets/${ids.wallet}`,
    body: (ids) => ({
      currency: 'EUR',
      credit_limit: '5.00',
      max_balance: '1000.00',
      low_balance_threshold: '2.00',
      auto_topup_payment_method_id: ids.card,
    }),
    amounts: [
      { field: 'credit_limit', kind: 'limit' },
      { field: 'max_balance', kind: 'limit' },
      { field: 'low_balance_threshold', kind: 'limit' },
    ],
    takesIds: true,
  },
  {
    name: 'create wallet',
    method: 'post',
    path: () => '/v1/wallets',
    body: (ids) => ({ customer_id: ids.customer, currency: 'USD', credit_limit: '0.00' }),
    amounts: [{ field: 'credit_limit', kind: 'limit' }],
    takesIds: true,
  },
  {
    name: 'fx rate',
    method: 'put',
    path: () => '/v1/fx_rates/EUR/USD',
    body: () => ({ rate: '1.0850' }),
    amounts: [{ field: 'rate', kind: 'rate' }],
    takesIds: false,
  },
  {
    name: 'payment method',
    method: 'post',
    path: (ids) => `/v1/customers/${ids.customer}/payment_methods`,
    body: () => ({ token: 'pm_card_visa' }),
    takesIds: true,
  },
  {
    name: 'top-up',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/top_ups`,
    body: () => ({ amount: '10.00', mode: 'hosted_checkout' }),
    amounts: [{ field: 'amount', kind: 'positive' }],
    takesIds: true,
  },
  {
    name: 'off-session top-up',
    method: 'post',
    path: (ids) => `/v1/wallets/${ids.wallet}/top_ups`,
    body: (ids) => ({ amount: '10.00', mode: 'off_session', payment_method_id: ids.card }),
    amounts: [{ field: 'amount', kind: 'positive' }],
    takesIds: true,
  },
];

describe('Wallet routes under generated bad input (R8)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    const api = new WalletClient(t, tenant.auth);
    const { customer, wallet } = await api.customerWithWallet('EUR', 'Fuzzed GmbH');
    const other = (await api.customerWithWallet('EUR', 'Other GmbH')).wallet;
    await api.ok(wallet.id, 'credit', { amount: '100.00' });
    const hold = await api.post(`/v1/wallets/${wallet.id}/holds`, { amount: '5.00' });
    expect(hold.status).toBe(201);
    const card = await api.post(`/v1/customers/${customer.id}/payment_methods`, { token: 'pm_card_visa' });
    expect(card.status).toBe(201);
    ids = { wallet: wallet.id, other: other.id, hold: hold.body.id, customer: customer.id, card: card.body.id };
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx and changes nothing (SEED printed)`, async () => {
    console.log(`wallet bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    // Another tenant's wallet: "not yours" must be refused like "unknown".
    const stranger = await createTenant(t);
    const strangers = new WalletClient(t, stranger.auth);
    const { customer, wallet } = await strangers.customerWithWallet('EUR', 'Stranger AG');
    const card = await strangers.post(`/v1/customers/${customer.id}/payment_methods`, { token: 'pm_card_visa' });
    expect(card.status).toBe(201);
    await expectEveryDefectRefused(t, {
      auth: tenant.auth,
      routes: ROUTES,
      ids,
      foreignId: wallet.id,
      foreignIds: { card: card.body.id },
      seed,
      runs: BAD_INPUT_RUNS,
      tables: TABLES,
    });
  });

  it('replays each route’s valid request under one Idempotency-Key however its path is spelled, with no second effect', async () => {
    await expectRespelledPathsReplayed(t, { auth: tenant.auth, routes: ROUTES, ids, tables: TABLES });
  });
});
