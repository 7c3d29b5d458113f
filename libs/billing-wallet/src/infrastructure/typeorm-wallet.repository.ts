import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { executeWrites, isUuid, preparedQuery, sameTenant, SqlWrite } from '@app/shared-kernel';
import { LedgerEntry, Source, Wallet } from '../domain/wallet';
import { WalletKey, WalletRepository } from '../domain/wallet.repository';
import {
  settingsParameters,
  toEntry,
  toWallet,
  TRANSACTION_COLUMNS,
  TransactionRow,
  walletWrites,
  walletsWrites,
  WalletRow,
} from './wallet-rows';

@Injectable()
export class TypeOrmWalletRepository extends WalletRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async lock(key: WalletKey): Promise<Wallet | undefined> {
    return (await this.lockAll(key, [key.walletId])).get(key.walletId.toLowerCase());
  }

  async lockAll({ organizationId, workspaceId }: Omit<WalletKey, 'walletId'>, walletIds: readonly string[]) {
    const ids = walletIds.filter(isUuid);
    const locked = new Map<string, Wallet>();
    if (ids.length === 0) return locked;
    const rows: WalletRow[] = await preparedQuery(this.txHost.tx, 'SELECT * FROM wallet_lock($1, $2, $3::uuid[])', [
      organizationId,
      workspaceId,
      ids,
    ]);
    for (const row of rows) locked.set(row.id, toWallet(row));
    return locked;
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

  async save(wallets: Wallet | readonly Wallet[], ...alongside: SqlWrite[]): Promise<void> {
    const all = Array.isArray(wallets) ? (wallets as readonly Wallet[]) : [wallets as Wallet];
    await executeWrites(this.txHost.tx, [...all.flatMap(walletWrites), ...alongside], { defer: 'after_pending' });
  }

  async saveAll(wallets: readonly Wallet[], ...alongside: SqlWrite[]): Promise<void> {
    await executeWrites(this.txHost.tx, [...walletsWrites(wallets), ...alongside], { defer: 'after_pending' });
  }

  async findByReferences(
    { organizationId, workspaceId }: Omit<WalletKey, 'walletId'>,
    lookups: ReadonlyArray<{ walletId: string; source: Source; reference: string }>,
  ): Promise<Array<{ walletId: string; entry: LedgerEntry }>> {
    if (lookups.length === 0) return [];
    // Each (wallet, source, reference) looked up by all three columns of the lookup index, as the
    // single operation's lookup is: three lists bound only the wallet (the planner filtered the
    // rest), and read every line of a busy wallet.
    const rows: TransactionRow[] = await preparedQuery(
      this.txHost.tx,
      `SELECT t.* FROM unnest($3::uuid[], $4::text[], $5::text[]) AS k(wallet_id, source, reference)
         CROSS JOIN LATERAL (
           SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions x
            WHERE x.wallet_id = k.wallet_id AND x.source = k.source AND x.reference = k.reference
              AND x.reference IS NOT NULL AND x.type IN ('credit', 'debit', 'adjustment') AND ${sameTenant('x', '$1', '$2')}
         ) t`,
      [
        organizationId,
        workspaceId,
        lookups.map((lookup) => lookup.walletId),
        lookups.map((lookup) => lookup.source),
        lookups.map((lookup) => lookup.reference),
      ],
    );
    return rows.map((row) => ({ walletId: row.wallet_id, entry: toEntry(row) }));
  }

  async findByReference(
    { organizationId, workspaceId, walletId }: WalletKey,
    source: Source,
    reference: string,
  ): Promise<LedgerEntry | undefined> {
    const rows: TransactionRow[] = await preparedQuery(
      this.txHost.tx,
      `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions
        WHERE wallet_id = $3 AND source = $4 AND reference = $5 AND type IN ('credit', 'debit', 'adjustment')
          AND ${sameTenant(null, '$1', '$2')}`,
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
