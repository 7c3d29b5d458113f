import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { LedgerEntry, Source, Wallet, WalletState } from '../domain/wallet';
import { WalletKey, WalletRepository } from '../domain/wallet.repository';
import { entryRecord, toEntry, toWallet, TRANSACTION_COLUMNS, TransactionRow, WALLET_SELECT, WalletRow } from './wallet-rows';

/** Limits and auto top-up settings, in the column order both insert and save use. */
function settingsParameters(s: Readonly<WalletState>): unknown[] {
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

@Injectable()
export class TypeOrmWalletRepository extends WalletRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async lock({ organizationId, workspaceId, walletId }: WalletKey): Promise<Wallet | undefined> {
    if (!isUuid(walletId)) return undefined;
    // Lock, then read in a second statement: a statement that waited for the lock re-reads the
    // wallet row but still sees its lots as of its own (older) snapshot, and would spend them twice.
    const locked: unknown[] = await preparedQuery(
      this.txHost.tx,
      `SELECT 1 FROM wallets w WHERE w.organization_id = $1 AND w.workspace_id = $2 AND w.id = $3 FOR UPDATE OF w`,
      [organizationId, workspaceId, walletId],
    );
    if (locked.length === 0) return undefined;
    const rows: WalletRow[] = await preparedQuery(
      this.txHost.tx,
      `SELECT ${WALLET_SELECT} FROM wallets w WHERE w.organization_id = $1 AND w.workspace_id = $2 AND w.id = $3`,
      [organizationId, workspaceId, walletId],
    );
    return rows[0] && toWallet(rows[0]);
  }

  async insert(wallet: Wallet): Promise<void> {
    const s = wallet.snapshot;
    await preparedQuery(
      this.txHost.tx,
      `INSERT INTO wallets (organization_id, workspace_id, id, customer_id, currency, is_primary, credit_limit, max_balance, max_single_credit,
         low_balance_threshold, auto_topup_enabled, auto_topup_amount, auto_topup_payment_method_id, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
      [
        s.organizationId,
        s.workspaceId,
        s.id,
        s.customerId,
        s.currency,
        s.isPrimary,
        ...settingsParameters(s),
        s.version,
        s.createdAt,
      ],
    );
  }

  async save(wallet: Wallet): Promise<void> {
    const s = wallet.snapshot;
    const changes = wallet.takeChanges();
    await preparedQuery(
      this.txHost.tx,
      `WITH updated AS (
         UPDATE wallets SET cash_balance = $4, promotional_balance = $5, held_balance = $6, credit_limit = $7, max_balance = $8,
           max_single_credit = $9, low_balance_threshold = $10, auto_topup_enabled = $11, auto_topup_amount = $12,
           auto_topup_payment_method_id = $13, is_primary = $14, version = $15, updated_at = $16
          WHERE organization_id = $1 AND workspace_id = $2 AND id = $3
       ),
       entries AS (
         INSERT INTO wallet_transactions (organization_id, workspace_id, ${TRANSACTION_COLUMNS})
         SELECT $1, $2, e.wallet_id, e.id, e.type, e.source, e.amount, e.currency, e.cash_amount, e.promotional_amount,
                e.ending_cash_balance, e.ending_promotional_balance, e.reason, e.reference, e.transfer_id, e.hold_id, e.expires_at,
                e.exchange_rate, e.funding, e.created_by_type, e.created_by_id, e.created_at
           FROM jsonb_to_recordset($17::jsonb) AS e(wallet_id uuid, id uuid, type text, source text, amount numeric, currency char(3),
                cash_amount numeric, promotional_amount numeric, ending_cash_balance numeric, ending_promotional_balance numeric,
                reason text, reference text, transfer_id uuid, hold_id uuid, expires_at timestamptz, exchange_rate jsonb, funding jsonb,
                created_by_type text, created_by_id uuid, created_at timestamptz)
       ),
       created_lots AS (
         INSERT INTO promotional_lots (organization_id, workspace_id, wallet_id, id, amount, remaining, expires_at, created_at)
         SELECT $1, $2, $3, l.id, l.amount, l.remaining, l.expires_at, l.created_at
           FROM jsonb_to_recordset($18::jsonb) AS l(id uuid, amount numeric, remaining numeric, expires_at timestamptz, created_at timestamptz)
       )
       UPDATE promotional_lots p SET remaining = d.remaining
         FROM jsonb_to_recordset($19::jsonb) AS d(id uuid, remaining numeric)
        WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.wallet_id = $3 AND p.id = d.id`,
      [
        s.organizationId,
        s.workspaceId,
        s.id,
        s.cash.toString(),
        s.promotional.toString(),
        s.held.toString(),
        ...settingsParameters(s),
        s.isPrimary,
        s.version,
        s.updatedAt,
        JSON.stringify(changes.entries.map((entry) => entryRecord(wallet, entry))),
        JSON.stringify(
          changes.lotsCreated.map((lot) => ({
            id: lot.id,
            amount: lot.amount.toString(),
            remaining: lot.remaining.toString(),
            expires_at: lot.expiresAt?.toISOString() ?? null,
            created_at: lot.createdAt.toISOString(),
          })),
        ),
        JSON.stringify(
          changes.lotsDrawn
            .filter((drawn) => !changes.lotsCreated.some((lot) => lot.id === drawn.lotId))
            .map((drawn) => ({ id: drawn.lotId, remaining: drawn.remaining.toString() })),
        ),
      ],
    );
  }

  async findByReference(
    { organizationId, workspaceId, walletId }: WalletKey,
    source: Source,
    reference: string,
  ): Promise<LedgerEntry | undefined> {
    const rows: TransactionRow[] = await preparedQuery(
      this.txHost.tx,
      `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND source = $4 AND reference = $5
          AND type IN ('credit', 'debit', 'adjustment')`,
      [organizationId, workspaceId, walletId, source, reference],
    );
    return rows[0] && toEntry(rows[0]);
  }

  async demotePrimary(
    { organizationId, workspaceId }: Omit<WalletKey, 'walletId'>,
    customerId: string,
    exceptWalletId: string,
  ): Promise<void> {
    // Serializes primary swaps per customer: the UPDATE below then sees a swap that committed meanwhile.
    await preparedQuery(
      this.txHost.tx,
      'SELECT 1 FROM customers WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR NO KEY UPDATE',
      [organizationId, workspaceId, customerId],
    );
    await preparedQuery(
      this.txHost.tx,
      `UPDATE wallets SET is_primary = false, version = version + 1
        WHERE organization_id = $1 AND workspace_id = $2 AND customer_id = $3 AND is_primary AND id <> $4`,
      [organizationId, workspaceId, customerId, exceptWalletId],
    );
  }
}
