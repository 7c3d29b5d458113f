import Big from 'big.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { TestApp } from './test-app';
import { idem } from './tenants';

/** The error `type` the contract pairs with each status. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  409: 'conflict_error',
  422: 'business_rule_error',
};

/** Asserts status, code and type together, so a failure shows all three (and the body) at once. */
export function expectWalletError(response: request.Response, status: number, code: string): any {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(response.body.error).toEqual(
    expect.objectContaining({
      status,
      code,
      type: code.startsWith('IDEMPOTENCY_') && status !== 400 ? 'idempotency_error' : ERROR_TYPES[status],
      message: expect.any(String),
      request_id: response.headers['request-id'],
    }),
  );
  return response.body.error;
}

/** A 400 VALIDATION_ERROR naming `param` with the field error `code`. */
export function expectWalletFieldError(response: request.Response, param: string, code: string): void {
  const error = expectWalletError(response, 400, 'VALIDATION_ERROR');
  expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param, code })]));
}

/** Thin request helpers bound to one app: every POST carries a fresh Idempotency-Key unless given one. */
export class WalletClient {
  constructor(
    private readonly t: TestApp,
    readonly auth: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  as(auth: string, headers: Record<string, string> = this.headers): WalletClient {
    return new WalletClient(this.t, auth, headers);
  }

  get(path: string): Promise<request.Response> {
    return this.t.http
      .get(path)
      .set('Authorization', this.auth)
      .set(this.headers)
      .then((response) => response);
  }

  post(path: string, body: unknown = {}, key: string | null = idem()): Promise<request.Response> {
    const pending = this.t.http.post(path).set('Authorization', this.auth).set(this.headers);
    if (key !== null) pending.set('Idempotency-Key', key);
    return pending.send(body as object).then((response) => response);
  }

  patch(path: string, body: unknown): Promise<request.Response> {
    return this.t.http
      .patch(path)
      .set('Authorization', this.auth)
      .set(this.headers)
      .send(body as object)
      .then((response) => response);
  }

  /** POST /v1/customers, then (no wait: it commits with the customer) lists its primary wallet; returns both. */
  async customerWithWallet(currency = 'EUR', name = 'Wallet customer'): Promise<{ customer: any; wallet: any }> {
    const created = await this.post('/v1/customers', { name, currency });
    expect(created.status).toBe(201);
    const listed = await this.get(`/v1/wallets?customer_id=${created.body.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.primary_wallet_id, is_primary: true })]);
    return { customer: created.body, wallet: listed.body.data[0] };
  }

  money(walletId: string, verb: 'credit' | 'debit' | 'adjust', body: Record<string, unknown>, key?: string) {
    return this.post(`/v1/wallets/${walletId}/${verb}`, body, key ?? idem());
  }

  /** A money operation that must succeed: returns the transaction. */
  async ok(walletId: string, verb: 'credit' | 'debit' | 'adjust', body: Record<string, unknown>): Promise<any> {
    const response = await this.money(walletId, verb, body);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: expect.anything() });
    return response.body;
  }

  async wallet(walletId: string): Promise<any> {
    const response = await this.get(`/v1/wallets/${walletId}`);
    expect(response.status).toBe(200);
    return response.body;
  }
}

export interface WalletLedgerState {
  id: string;
  cash: string;
  promotional: string;
  held: string;
  creditLimit: string;
  lines: number;
}

interface WalletRowCheck {
  id: string;
  cash_balance: string;
  promotional_balance: string;
  held_balance: string;
  credit_limit: string;
  sum_amount: string;
  sum_cash: string;
  sum_promotional: string;
  lots_remaining: string;
  lines: number;
}

interface LineRow {
  wallet_id: string;
  id: string;
  type: string;
  amount: string;
  cash_amount: string;
  promotional_amount: string;
  ending_cash_balance: string;
  ending_promotional_balance: string;
  funding: { lots: Array<{ lot_id: string; amount: string; expires_at: string | null }>; cash: string } | null;
  created_at: Date;
  /** For a hold_capture: when its hold was placed (lots valid then stay spendable for it). */
  reserved_at: Date | null;
}

interface LotRow {
  wallet_id: string;
  id: string;
  amount: string;
  remaining: string;
  expires_at: Date | null;
  created_at: Date;
}

/**
 * The ledger properties of R1, checked in SQL data for the given wallets (every wallet when
 * omitted). Returns the violations found, empty when the books balance:
 *  - cash + promotional = Σ amount; cash = Σ cash_amount; promotional = Σ promotional_amount = Σ lots.remaining
 *  - held = 0 (these tests place no holds); cash + promotional − held ≥ −credit_limit
 *  - ordered by id, every line's ending balances are the previous ones plus its own amounts,
 *    and the last line ends at the wallet's balances
 *  - every debit's funding trace adds up to its amounts, draws lots soonest-expiry first and
 *    never an expired lot; each lot's amount − remaining is exactly what the traces drew from it
 */
export async function ledgerViolations(db: DataSource, walletIds?: string[]): Promise<string[]> {
  const ids = walletIds ?? null;
  const wallets: WalletRowCheck[] = await db.query(
    `SELECT w.id, w.cash_balance::text, w.promotional_balance::text, w.held_balance::text, w.credit_limit::text,
            COALESCE(t.sum_amount, 0)::text AS sum_amount, COALESCE(t.sum_cash, 0)::text AS sum_cash,
            COALESCE(t.sum_promotional, 0)::text AS sum_promotional, COALESCE(t.lines, 0)::int AS lines,
            COALESCE((SELECT sum(l.remaining) FROM promotional_lots l
                       WHERE l.organization_id = w.organization_id AND l.workspace_id = w.workspace_id AND l.wallet_id = w.id), 0)::text
              AS lots_remaining
       FROM wallets w
       LEFT JOIN LATERAL (
         SELECT sum(amount) AS sum_amount, sum(cash_amount) AS sum_cash, sum(promotional_amount) AS sum_promotional, count(*) AS lines
           FROM wallet_transactions x
          WHERE x.organization_id = w.organization_id AND x.workspace_id = w.workspace_id AND x.wallet_id = w.id
       ) t ON true
      WHERE $1::uuid[] IS NULL OR w.id = ANY ($1)`,
    [ids],
  );
  const lines: LineRow[] = await db.query(
    `SELECT wallet_id, id, type, amount::text, cash_amount::text, promotional_amount::text, ending_cash_balance::text,
            ending_promotional_balance::text, funding, created_at,
            (SELECT h.created_at FROM wallet_holds h
              WHERE h.organization_id = t.organization_id AND h.workspace_id = t.workspace_id AND h.wallet_id = t.wallet_id
                AND h.id = t.hold_id AND t.type = 'hold_capture') AS reserved_at
       FROM wallet_transactions t WHERE $1::uuid[] IS NULL OR wallet_id = ANY ($1) ORDER BY wallet_id, id`,
    [ids],
  );
  const lots: LotRow[] = await db.query(
    `SELECT wallet_id, id, amount::text, remaining::text, expires_at, created_at FROM promotional_lots
      WHERE $1::uuid[] IS NULL OR wallet_id = ANY ($1)`,
    [ids],
  );
  const violations: string[] = [];
  const eq = (a: string, b: string) => new Big(a).eq(new Big(b));
  for (const w of wallets) {
    const total = new Big(w.cash_balance).plus(w.promotional_balance);
    if (!total.eq(w.sum_amount)) violations.push(`${w.id}: cash+promotional ${total} ≠ Σ amount ${w.sum_amount}`);
    if (!eq(w.cash_balance, w.sum_cash)) violations.push(`${w.id}: cash ${w.cash_balance} ≠ Σ cash_amount ${w.sum_cash}`);
    if (!eq(w.promotional_balance, w.sum_promotional))
      violations.push(`${w.id}: promotional ${w.promotional_balance} ≠ Σ promotional_amount ${w.sum_promotional}`);
    if (!eq(w.promotional_balance, w.lots_remaining))
      violations.push(`${w.id}: promotional ${w.promotional_balance} ≠ Σ lots.remaining ${w.lots_remaining}`);
    if (!eq(w.held_balance, '0')) violations.push(`${w.id}: held ${w.held_balance} ≠ 0`);
    if (total.minus(w.held_balance).lt(new Big(w.credit_limit).neg()))
      violations.push(`${w.id}: available ${total.minus(w.held_balance)} below −credit_limit ${w.credit_limit}`);
  }
  const byWallet = new Map<string, LineRow[]>();
  for (const line of lines) byWallet.set(line.wallet_id, [...(byWallet.get(line.wallet_id) ?? []), line]);
  const lotById = new Map(lots.map((lot) => [lot.id, lot]));
  const drawn = new Map<string, Big>();
  for (const w of wallets) {
    let cash = new Big(0);
    let promotional = new Big(0);
    for (const line of byWallet.get(w.id) ?? []) {
      cash = cash.plus(line.cash_amount);
      promotional = promotional.plus(line.promotional_amount);
      if (!cash.eq(line.ending_cash_balance) || !promotional.eq(line.ending_promotional_balance)) {
        violations.push(
          `${w.id}: line ${line.id} ends at ${line.ending_cash_balance}/${line.ending_promotional_balance}, chain gives ${cash}/${promotional}`,
        );
        cash = new Big(line.ending_cash_balance);
        promotional = new Big(line.ending_promotional_balance);
      }
      if (!new Big(line.amount).eq(new Big(line.cash_amount).plus(line.promotional_amount)))
        violations.push(`${w.id}: line ${line.id} amount ≠ cash_amount + promotional_amount`);
      if (line.funding) violations.push(...fundingViolations(w.id, line, lotById, drawn));
    }
    if (!cash.eq(w.cash_balance) || !promotional.eq(w.promotional_balance))
      violations.push(`${w.id}: ledger ends at ${cash}/${promotional}, wallet holds ${w.cash_balance}/${w.promotional_balance}`);
  }
  for (const lot of lots) {
    const used = new Big(lot.amount).minus(lot.remaining);
    const traced = drawn.get(lot.id) ?? new Big(0);
    if (!used.eq(traced)) violations.push(`${lot.wallet_id}: lot ${lot.id} used ${used} but funding traces drew ${traced}`);
  }
  return violations;
}

function fundingViolations(walletId: string, line: LineRow, lots: Map<string, LotRow>, drawn: Map<string, Big>): string[] {
  const violations: string[] = [];
  const funding = line.funding!;
  const draws = funding.lots ?? [];
  const fromLots = draws.reduce((sum, draw) => sum.plus(draw.amount), new Big(0));
  if (!fromLots.eq(new Big(line.promotional_amount).neg()))
    violations.push(
      `${walletId}: line ${line.id} drew ${fromLots} from lots but promotional_amount is ${line.promotional_amount}`,
    );
  if (!new Big(funding.cash).eq(new Big(line.cash_amount).neg()))
    violations.push(`${walletId}: line ${line.id} funding cash ${funding.cash} ≠ −cash_amount ${line.cash_amount}`);
  let previous = -Infinity;
  for (const draw of draws) {
    const lot = lots.get(draw.lot_id);
    if (!lot) {
      violations.push(`${walletId}: line ${line.id} drew from unknown lot ${draw.lot_id}`);
      continue;
    }
    drawn.set(lot.id, (drawn.get(lot.id) ?? new Big(0)).plus(draw.amount));
    if (line.type === 'expiry') continue;
    const expiry = lot.expires_at ? lot.expires_at.getTime() : Infinity;
    const reservedByHold = line.reserved_at !== null && lot.created_at <= line.reserved_at && expiry > line.reserved_at.getTime();
    if (expiry <= line.created_at.getTime() && !reservedByHold)
      violations.push(`${walletId}: line ${line.id} spent lot ${lot.id} after its expiry`);
    if (expiry < previous) violations.push(`${walletId}: line ${line.id} drew lots out of expiry order`);
    previous = expiry;
  }
  return violations;
}
