import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { toEntry, TRANSACTION_COLUMNS, TransactionRow } from '../../infrastructure/wallet-rows';
import { assertWalletVisible } from '../visibility';
import { ListWalletTransactionsQuery } from './list-wallet-transactions.query';

@QueryHandler(ListWalletTransactionsQuery)
export class ListWalletTransactionsHandler implements IQueryHandler<ListWalletTransactionsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, walletId, limit, cursor }: ListWalletTransactionsQuery) {
    await assertWalletVisible(this.dataSource, actor, walletId);
    const page = await keysetPage<TransactionRow>(
      this.cursors,
      { list: `wallet_transactions:${walletId}`, filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions
            WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3
              AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $6`,
          [actor.organizationId, actor.workspaceId, walletId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map((row) => ({ walletId, currency: row.currency, entry: toEntry(row) })) };
  }
}
