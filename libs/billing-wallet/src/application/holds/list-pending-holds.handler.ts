import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { Hold } from '../../domain/hold';
import { HOLD_COLUMNS, HoldRow, toHold } from '../../infrastructure/typeorm-hold.repository';
import { assertWalletVisible } from '../visibility';
import { ListPendingHoldsQuery } from './list-pending-holds.query';

@QueryHandler(ListPendingHoldsQuery)
export class ListPendingHoldsHandler implements IQueryHandler<ListPendingHoldsQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, walletId }: ListPendingHoldsQuery): Promise<Hold[]> {
    await assertWalletVisible(this.dataSource, actor, walletId);
    const rows: HoldRow[] = await this.dataSource.query(
      `SELECT ${HOLD_COLUMNS} FROM wallet_holds
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND status = 'pending'
        ORDER BY created_at DESC, id DESC`,
      [actor.organizationId, actor.workspaceId, walletId],
    );
    return rows.map(toHold);
  }
}
