import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { toWallet, walletSelect, WalletRow } from '../../infrastructure/wallet-rows';
import { ListWalletsQuery } from './list-wallets.query';

@QueryHandler(ListWalletsQuery)
export class ListWalletsHandler implements IQueryHandler<ListWalletsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListWalletsQuery) {
    const bound = {
      customer_id: filters.customerId ?? null,
      currency: filters.currencies ? [...filters.currencies].sort() : null,
      is_primary: filters.isPrimary ?? null,
      auto_topup_enabled: filters.autoTopupEnabled ?? null,
      created_after: filters.createdAfter?.toISOString() ?? null,
      created_before: filters.createdBefore?.toISOString() ?? null,
    };
    const page = await keysetPage<WalletRow>(
      this.cursors,
      { list: 'wallets', filters: bound, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${walletSelect('$1')} FROM wallets w
            WHERE w.organization_id = $1 AND w.workspace_id = $2
              AND ($3::uuid IS NULL OR w.customer_id = $3) AND ($4::text[] IS NULL OR w.currency = ANY ($4))
              AND ($5::boolean IS NULL OR w.is_primary = $5) AND ($6::boolean IS NULL OR w.auto_topup_enabled = $6)
              AND ($7::timestamptz IS NULL OR w.created_at >= $7) AND ($8::timestamptz IS NULL OR w.created_at < $8)
              AND ($9::timestamptz IS NULL OR (w.created_at, w.id) < ($9, $10::uuid))
            ORDER BY w.created_at DESC, w.id DESC LIMIT $11`,
          [
            actor.organizationId,
            actor.workspaceId,
            bound.customer_id,
            bound.currency,
            bound.is_primary,
            bound.auto_topup_enabled,
            bound.created_after,
            bound.created_before,
            after?.[0] ?? null,
            after?.[1] ?? null,
            rows,
          ],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(toWallet) };
  }
}
