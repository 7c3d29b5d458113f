import { Money, sameTenant, SqlWrite } from '@app/shared-kernel';
import { EntryType, LedgerEntry, PromotionalLot, Source, Wallet, WalletState } from '../domain/wallet';
import { transactionResponse } from '../application/transaction-response';

/**
 * The columns of a wallet read, with its open lots aggregated as JSON (one round trip). The lots
 * name the organization by its parameter (`organization`, e.g. `$1`), not by the wallet's column:
 * Citus routes the correlated lookup to the organization's shard only so (else it reads every shard).
 */
export const walletSelect = (organization: string) => `
  w.organization_id, w.workspace_id, w.id, w.customer_id, w.currency, w.is_primary, w.cash_balance, w.promotional_balance,
  w.held_balance, w.credit_limit, w.max_balance, w.max_single_credit, w.low_balance_threshold, w.auto_topup_enabled,
  w.auto_topup_amount, w.auto_topup_payment_method_id, w.version, w.created_at, w.updated_at,
  COALESCE((SELECT json_agg(json_build_object('id', l.id, 'amount', l.amount::text, 'remaining', l.remaining::text, 'expires_at', l.expires_at, 'created_at', l.created_at))
              FROM promotional_lots l
             WHERE l.organization_id = ${organization} AND l.workspace_id = w.workspace_id AND l.wallet_id = w.id AND l.remaining > 0),
           '[]') AS lots`;

export interface WalletRow {
  organization_id: string;
  workspace_id: string;
  id: string;
  customer_id: string;
  currency: string;
  is_primary: boolean;
  cash_balance: string;
  promotional_balance: string;
  held_balance: string;
  credit_limit: string;
  max_balance: string | null;
  max_single_credit: string | null;
  low_balance_threshold: string | null;
  auto_topup_enabled: boolean;
  auto_topup_amount: string | null;
  auto_topup_payment_method_id: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  lots: Array<{ id: string; amount: string; remaining: string; expires_at: string | null; created_at: string }>;
}

/** PostgreSQL numeric(28,4) text → Money at the currency's scale (the extra zeros are exact). */
export function money(value: string, currency: string): Money {
  return Money.of(value, currency);
}

function optionalMoney(value: string | null, currency: string): Money | null {
  return value === null ? null : money(value, currency);
}

export function toWallet(row: WalletRow): Wallet {
  const c = row.currency;
  return Wallet.restore({
    organizationId: row.organization_id,
    workspaceId: row.workspace_id,
    id: row.id,
    customerId: row.customer_id,
    currency: c,
    isPrimary: row.is_primary,
    cash: money(row.cash_balance, c),
    promotional: money(row.promotional_balance, c),
    held: money(row.held_balance, c),
    limits: {
      creditLimit: money(row.credit_limit, c),
      maxBalance: optionalMoney(row.max_balance, c),
      maxSingleCredit: optionalMoney(row.max_single_credit, c),
      lowBalanceThreshold: optionalMoney(row.low_balance_threshold, c),
    },
    autoTopup: {
      enabled: row.auto_topup_enabled,
      amount: optionalMoney(row.auto_topup_amount, c),
      paymentMethodId: row.auto_topup_payment_method_id,
    },
    lots: row.lots.map((lot): PromotionalLot => ({
      id: lot.id,
      amount: money(lot.amount, c),
      remaining: money(lot.remaining, c),
      expiresAt: lot.expires_at ? new Date(lot.expires_at) : null,
      createdAt: new Date(lot.created_at),
    })),
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

export const TRANSACTION_COLUMNS = `wallet_id, id, type, source, amount, currency, cash_amount, promotional_amount, ending_cash_balance,
  ending_promotional_balance, reason, reference, transfer_id, hold_id, expires_at, exchange_rate, funding, created_by_type,
  created_by_id, created_at`;

export interface TransactionRow {
  wallet_id: string;
  id: string;
  type: EntryType;
  source: Source | null;
  amount: string;
  currency: string;
  cash_amount: string;
  promotional_amount: string;
  ending_cash_balance: string;
  ending_promotional_balance: string;
  reason: string | null;
  reference: string | null;
  transfer_id: string | null;
  hold_id: string | null;
  expires_at: Date | null;
  exchange_rate: Record<string, string> | null;
  funding: { lots: Array<{ lot_id: string; amount: string; expires_at: string | null }>; cash: string } | null;
  created_by_type: string;
  created_by_id: string | null;
  created_at: Date;
}

export function toEntry(row: TransactionRow): LedgerEntry {
  const c = row.currency;
  return {
    id: row.id,
    type: row.type,
    source: row.source,
    amount: money(row.amount, c),
    cashAmount: money(row.cash_amount, c),
    promotionalAmount: money(row.promotional_amount, c),
    endingCash: money(row.ending_cash_balance, c),
    endingPromotional: money(row.ending_promotional_balance, c),
    reason: row.reason,
    reference: row.reference,
    transferId: row.transfer_id,
    holdId: row.hold_id,
    expiresAt: row.expires_at,
    exchangeRate: row.exchange_rate,
    funding: row.funding && {
      lots: row.funding.lots.map((lot) => ({
        lotId: lot.lot_id,
        amount: money(lot.amount, c),
        expiresAt: lot.expires_at ? new Date(lot.expires_at) : null,
      })),
      cash: money(row.funding.cash, c),
    },
    createdBy: { type: row.created_by_type, id: row.created_by_id },
    createdAt: row.created_at,
  };
}

/**
 * A ledger line as wallet_transactions stores it: the contract's JSON (transactionResponse, the one
 * builder) with created_by in its two columns and funding under the key stored rows have always had
 * (`lots`, which toEntry reads back). Keys without a column (`object`, `created_by`) are ignored by
 * the insert's record definition.
 */
function entryRecord(wallet: Wallet, entry: LedgerEntry): Record<string, unknown> {
  const line = transactionResponse({ walletId: wallet.id, currency: wallet.snapshot.currency, entry });
  return {
    ...line,
    funding: line.funding && { lots: line.funding.promotional_lots, cash: line.funding.cash },
    created_by_type: line.created_by.type,
    created_by_id: line.created_by.id,
  };
}

/** Limits and auto top-up settings, in the column order both insert and save use. */
export function settingsParameters(s: Readonly<WalletState>): unknown[] {
  return [
    s.limits.creditLimit.toString(),
    s.limits.maxBalance?.toString() ?? null,
    s.limits.maxSingleCredit?.toString() ?? null,
    s.limits.lowBalanceThreshold?.toString() ?? null,
    s.autoTopup.enabled,
    s.autoTopup.amount?.toString() ?? null,
    s.autoTopup.paymentMethodId,
  ];
}

/** Appends ledger lines of one workspace ($1, $2), given as a JSON array of entry records ($3). */
const INSERT_LEDGER_LINES = `INSERT INTO wallet_transactions (organization_id, workspace_id, ${TRANSACTION_COLUMNS})
         SELECT $1, $2, e.wallet_id, e.id, e.type, e.source, e.amount, e.currency, e.cash_amount, e.promotional_amount,
                e.ending_cash_balance, e.ending_promotional_balance, e.reason, e.reference, e.transfer_id, e.hold_id, e.expires_at,
                e.exchange_rate, e.funding, e.created_by_type, e.created_by_id, e.created_at
           FROM jsonb_to_recordset($3::jsonb) AS e(wallet_id uuid, id uuid, type text, source text, amount numeric, currency char(3),
                cash_amount numeric, promotional_amount numeric, ending_cash_balance numeric, ending_promotional_balance numeric,
                reason text, reference text, transfer_id uuid, hold_id uuid, expires_at timestamptz, exchange_rate jsonb, funding jsonb,
                created_by_type text, created_by_id uuid, created_at timestamptz)`;

/**
 * The wallet row, its new ledger lines, its new lots and each lot it drew from: the writes of one
 * statement. The row is written only over the version the decision read (optimistic check in the
 * WHERE, beside the lock wallet_lock took): should the lock not have held (on Citus, a shard moved
 * between the lock and the write, so the lock was on the old placement and another request wrote
 * the new one), the UPDATE changes no row and the save throws StaleWriteError instead of writing
 * balances computed from a stale read over someone else's; the transaction is then run again.
 */
export function walletWrites(wallet: Wallet): SqlWrite[] {
  const s = wallet.snapshot;
  const changes = wallet.takeChanges();
  const key = [s.organizationId, s.workspaceId, s.id];
  return [
    {
      text: `UPDATE wallets SET cash_balance = $4, promotional_balance = $5, held_balance = $6, credit_limit = $7, max_balance = $8,
           max_single_credit = $9, low_balance_threshold = $10, auto_topup_enabled = $11, auto_topup_amount = $12,
           auto_topup_payment_method_id = $13, is_primary = $14, version = $15, updated_at = $16
          WHERE id = $3 AND ${sameTenant(null, '$1', '$2')} AND version = $17`,
      values: [
        ...key,
        s.cash.toString(),
        s.promotional.toString(),
        s.held.toString(),
        ...settingsParameters(s),
        s.isPrimary,
        s.version,
        s.updatedAt,
        changes.storedVersion,
      ],
      expectChanged: { rows: 1, what: `wallet ${s.id}` },
    },
    {
      text: INSERT_LEDGER_LINES,
      values: [s.organizationId, s.workspaceId, JSON.stringify(changes.entries.map((entry) => entryRecord(wallet, entry)))],
    },
    {
      text: `INSERT INTO promotional_lots (organization_id, workspace_id, wallet_id, id, amount, remaining, expires_at, created_at)
         SELECT $1, $2, $3, l.id, l.amount, l.remaining, l.expires_at, l.created_at
           FROM jsonb_to_recordset($4::jsonb) AS l(id uuid, amount numeric, remaining numeric, expires_at timestamptz, created_at timestamptz)`,
      values: [
        ...key,
        JSON.stringify(
          changes.lotsCreated.map((lot) => ({
            id: lot.id,
            amount: lot.amount.toString(),
            remaining: lot.remaining.toString(),
            expires_at: lot.expiresAt?.toISOString() ?? null,
            created_at: lot.createdAt.toISOString(),
          })),
        ),
      ],
    },
    ...changes.lotsDrawn
      .filter((drawn) => !changes.lotsCreated.some((lot) => lot.id === drawn.lotId))
      .map((drawn) => lotDrawnWrite(key, drawn.lotId, drawn.remaining)),
  ];
}

/**
 * One UPDATE per drawn lot, by its whole key: a join on the list would let the planner read every
 * lot the wallet (or the workspace) ever had, spent ones included, whenever it guesses there are few.
 */
function lotDrawnWrite(key: string[], lotId: string, remaining: Money): SqlWrite {
  return {
    text: `UPDATE promotional_lots SET remaining = $5
          WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4`,
    values: [...key, lotId, remaining.toString()],
  };
}

/**
 * The writes of many wallets of one workspace (a batch of debits) in set-based statements whose
 * number does not grow with the wallets: the wallet rows, the ledger lines and the lots created,
 * each a single statement over a JSON array; only the lots drawn down are one UPDATE each, by
 * their whole key, as for one wallet. Every statement names the organization and the workspace by
 * parameter (Citus routes them to the organization's shard) and finds each row through a unique
 * index, whatever the statistics say.
 */
export function walletsWrites(wallets: readonly Wallet[]): SqlWrite[] {
  if (wallets.length === 0) return [];
  const { organizationId, workspaceId } = wallets[0].snapshot;
  for (const wallet of wallets) {
    const s = wallet.snapshot;
    if (s.organizationId !== organizationId || s.workspaceId !== workspaceId)
      throw new Error('walletsWrites: every wallet must belong to one workspace');
  }
  const tenant = [organizationId, workspaceId];
  const all = wallets.map((wallet) => ({ wallet, changes: wallet.takeChanges() }));
  const rows = all.map(({ wallet, changes }) => {
    const s = wallet.snapshot;
    const [creditLimit, maxBalance, maxSingleCredit, lowBalanceThreshold, autoEnabled, autoAmount, autoMethod] =
      settingsParameters(s);
    return {
      id: s.id,
      cash_balance: s.cash.toString(),
      promotional_balance: s.promotional.toString(),
      held_balance: s.held.toString(),
      credit_limit: creditLimit,
      max_balance: maxBalance,
      max_single_credit: maxSingleCredit,
      low_balance_threshold: lowBalanceThreshold,
      auto_topup_enabled: autoEnabled,
      auto_topup_amount: autoAmount,
      auto_topup_payment_method_id: autoMethod,
      is_primary: s.isPrimary,
      version: s.version,
      stored_version: changes.storedVersion,
      updated_at: s.updatedAt.toISOString(),
    };
  });
  const entries = all.flatMap(({ wallet, changes }) => changes.entries.map((entry) => entryRecord(wallet, entry)));
  const lotsCreated = all.flatMap(({ wallet, changes }) =>
    changes.lotsCreated.map((lot) => ({
      wallet_id: wallet.id,
      id: lot.id,
      amount: lot.amount.toString(),
      remaining: lot.remaining.toString(),
      expires_at: lot.expiresAt?.toISOString() ?? null,
      created_at: lot.createdAt.toISOString(),
    })),
  );
  const lotsDrawn = all.flatMap(({ wallet, changes }) =>
    changes.lotsDrawn
      .filter((drawn) => !changes.lotsCreated.some((lot) => lot.id === drawn.lotId))
      .map((drawn) => lotDrawnWrite([organizationId, workspaceId, wallet.id], drawn.lotId, drawn.remaining)),
  );
  const writes: SqlWrite[] = [
    {
      text: `UPDATE wallets w SET cash_balance = v.cash_balance, promotional_balance = v.promotional_balance,
           held_balance = v.held_balance, credit_limit = v.credit_limit, max_balance = v.max_balance,
           max_single_credit = v.max_single_credit, low_balance_threshold = v.low_balance_threshold,
           auto_topup_enabled = v.auto_topup_enabled, auto_topup_amount = v.auto_topup_amount,
           auto_topup_payment_method_id = v.auto_topup_payment_method_id, is_primary = v.is_primary, version = v.version,
           updated_at = v.updated_at
          FROM jsonb_to_recordset($3::jsonb) AS v(id uuid, cash_balance numeric, promotional_balance numeric, held_balance numeric,
               credit_limit numeric, max_balance numeric, max_single_credit numeric, low_balance_threshold numeric,
               auto_topup_enabled boolean, auto_topup_amount numeric, auto_topup_payment_method_id text, is_primary boolean,
               version integer, stored_version integer, updated_at timestamptz)
         WHERE w.id = v.id AND w.id = ANY ($4::uuid[]) AND ${sameTenant('w', '$1', '$2')} AND w.version = v.stored_version`,
      // The ids again as a list: the unique index on id bounds the wallets read (a join on the JSON
      // alone, estimated at 100 rows, let the planner scan every wallet of a table it believed small).
      values: [...tenant, JSON.stringify(rows), rows.map((row) => row.id)],
      // Each row only over the version its decision read, as for one wallet (walletWrites).
      expectChanged: { rows: rows.length, what: `wallets ${rows.map((row) => row.id).join(', ')}` },
    },
  ];
  if (entries.length > 0) writes.push({ text: INSERT_LEDGER_LINES, values: [...tenant, JSON.stringify(entries)] });
  if (lotsCreated.length > 0) {
    writes.push({
      text: `INSERT INTO promotional_lots (organization_id, workspace_id, wallet_id, id, amount, remaining, expires_at, created_at)
         SELECT $1, $2, l.wallet_id, l.id, l.amount, l.remaining, l.expires_at, l.created_at
           FROM jsonb_to_recordset($3::jsonb)
             AS l(wallet_id uuid, id uuid, amount numeric, remaining numeric, expires_at timestamptz, created_at timestamptz)`,
      values: [...tenant, JSON.stringify(lotsCreated)],
    });
  }
  writes.push(...lotsDrawn);
  return writes;
}
