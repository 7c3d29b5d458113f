import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { assertWalletVisible } from '../visibility';
import { ListWalletTransactionsQuery } from './list-wallet-transactions.query';
import { WalletReads } from './wallet-reads';

@QueryHandler(ListWalletTransactionsQuery)
export class ListWalletTransactionsHandler implements IQueryHandler<ListWalletTransactionsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wallets: WalletReads,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, walletId, limit, cursor }: ListWalletTransactionsQuery) {
    await assertWalletVisible(this.dataSource, actor, walletId);
    return keysetPage(
      this.cursors,
      { list: `wallet_transactions:${walletId}`, filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) => this.wallets.listTransactions(actor, walletId, after, rows),
      ({ entry }) => newestFirstPosition({ created_at: entry.createdAt, id: entry.id }),
    );
  }
}
