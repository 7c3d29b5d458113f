import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { Hold } from '../../domain/hold';
import { assertWalletVisible } from '../visibility';
import { HoldReads } from './hold-reads';
import { ListPendingHoldsQuery } from './list-pending-holds.query';

@QueryHandler(ListPendingHoldsQuery)
export class ListPendingHoldsHandler implements IQueryHandler<ListPendingHoldsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly holds: HoldReads,
  ) {}

  async execute({ actor, walletId }: ListPendingHoldsQuery): Promise<Hold[]> {
    await assertWalletVisible(this.dataSource, actor, walletId);
    return this.holds.listPending(actor, walletId);
  }
}
