import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { ListWalletsQuery } from './list-wallets.query';
import { WalletListFilters, WalletReads } from './wallet-reads';

@QueryHandler(ListWalletsQuery)
export class ListWalletsHandler implements IQueryHandler<ListWalletsQuery> {
  constructor(
    private readonly wallets: WalletReads,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListWalletsQuery) {
    const bound: WalletListFilters = {
      customer_id: filters.customerId ?? null,
      currency: filters.currencies ? [...filters.currencies].sort() : null,
      is_primary: filters.isPrimary ?? null,
      auto_topup_enabled: filters.autoTopupEnabled ?? null,
      created_after: filters.createdAfter?.toISOString() ?? null,
      created_before: filters.createdBefore?.toISOString() ?? null,
    };
    return keysetPage(
      this.cursors,
      { list: 'wallets', filters: bound, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) => this.wallets.list(actor, bound, after, rows),
      (wallet) => newestFirstPosition({ created_at: wallet.snapshot.createdAt, id: wallet.id }),
    );
  }
}
