import { Injectable } from '@nestjs/common';
import { sameTenant } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { TransactionView } from '../application/wallet.view';
import { WalletListFilters, WalletReads, WalletScope } from '../application/wallets/wallet-reads';
import { Wallet } from '../domain/wallet';
import { toEntry, toWallet, TRANSACTION_COLUMNS, TransactionRow, walletSelect, WalletRow } from './wallet-rows';

@Injectable()
export class TypeOrmWalletReads extends WalletReads {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async find(scope: WalletScope, walletId: string): Promise<Wallet | undefined> {
    const rows: WalletRow[] = await this.dataSource.query(
      `SELECT ${walletSelect('$1')} FROM wallets w WHERE w.id = $3 AND ${sameTenant('w', '$1', '$2')}`,
      [scope.organizationId, scope.workspaceId, walletId],
    );
    return rows[0] && toWallet(rows[0]);
  }

  async list(scope: WalletScope, filters: WalletListFilters, after: unknown[] | undefined, limit: number): Promise<Wallet[]> {
    const rows: WalletRow[] = await this.dataSource.query(
      `SELECT ${walletSelect('$1')} FROM wallets w
        WHERE w.organization_id = $1 AND w.workspace_id = $2
          AND ($3::uuid IS NULL OR w.customer_id = $3) AND ($4::text[] IS NULL OR w.currency = ANY ($4))
          AND ($5::boolean IS NULL OR w.is_primary = $5) AND ($6::boolean IS NULL OR w.auto_topup_enabled = $6)
          AND ($7::timestamptz IS NULL OR w.created_at >= $7) AND ($8::timestamptz IS NULL OR w.created_at < $8)
          AND ($9::timestamptz IS NULL OR (w.created_at, w.id) < ($9, $10::uuid))
        ORDER BY w.created_at DESC, w.id DESC LIMIT $11`,
      [
        scope.organizationId,
        scope.workspaceId,
        filters.customer_id,
        filters.currency,
        filters.is_primary,
        filters.auto_topup_enabled,
        filters.created_after,
        filters.created_before,
        after?.[0] ?? null,
        after?.[1] ?? null,
        limit,
      ],
    );
    return rows.map(toWallet);
  }

  async listTransactions(
    scope: WalletScope,
    walletId: string,
    after: unknown[] | undefined,
    limit: number,
  ): Promise<TransactionView[]> {
    const rows: TransactionRow[] = await this.dataSource.query(
      `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $6`,
      [scope.organizationId, scope.workspaceId, walletId, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows.map((row) => ({ walletId, currency: row.currency, entry: toEntry(row) }));
  }
}
