import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { WalletClient } from '../support/wallet-helpers';
import { traceWire } from '../support/wire-trace';

const CLAIM = 'SELECT * FROM idempotency_claim($1, $2, $3, $4)';
const LOCK = 'SELECT * FROM wallet_lock($1, $2, $3::uuid[])';

/**
 * Issue 24 item 1: the round trips of a money operation's transaction, read at the wire of the
 * connection that served it — BEGIN with the idempotency claim, the wallet lock, the decision's
 * one statement (balances, ledger lines, audit row, events, and the idempotency record as one
 * of its CTEs) with the COMMIT: the locks and the workspace's event counter are held for that one
 * round trip (webhook delivery jobs are queued after the COMMIT: write-pipeline.ts, afterCommit).
 */
describe('Round trips of a money operation (PostgreSQL)', () => {
  let t: TestApp;
  let api: WalletClient;
  let wire: ReturnType<typeof traceWire>;

  beforeAll(async () => {
    t = await createTestApp();
    api = new WalletClient(t, (await createTenant(t)).auth);
    wire = traceWire((t.app.get(DataSource).driver as unknown as { master: Pool }).master);
  });
  afterAll(() => t.close());

  /** The round trips of the request's one transaction that claimed an Idempotency-Key. */
  async function keyedTransaction(send: () => Promise<{ status: number; body: unknown }>): Promise<string[][]> {
    wire.reset();
    const response = await send();
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: expect.anything() });
    const keyed = wire.sessions().filter((trips) => trips.some((trip) => trip.includes(CLAIM)));
    expect(keyed).toHaveLength(1);
    return keyed[0];
  }

  const expected = [
    ['START TRANSACTION', CLAIM],
    [LOCK],
    [expect.stringMatching(/^WITH w0 AS \(UPDATE wallets SET cash_balance .* AS \(INSERT INTO idempotency_records /), 'COMMIT'],
  ];

  it('debits in three round trips: BEGIN with the claim, the lock, one statement for every write with the COMMIT', async () => {
    const { wallet } = await api.customerWithWallet('USD');
    await api.ok(wallet.id, 'credit', { amount: '10.00' });
    expect(await keyedTransaction(() => api.money(wallet.id, 'debit', { amount: '1.00' }))).toEqual(expected);
  });

  it('transfers in three round trips too, both wallets locked in one', async () => {
    const source = (await api.customerWithWallet('USD', 'Source')).wallet;
    const target = (await api.customerWithWallet('USD', 'Target')).wallet;
    await api.ok(source.id, 'credit', { amount: '10.00' });
    const trips = await keyedTransaction(() =>
      api.post(`/v1/wallets/${source.id}/transfer`, { amount: { value: '1.00', currency: 'USD' }, target_wallet_id: target.id }),
    );
    expect(trips).toEqual(expected);
  });
});
