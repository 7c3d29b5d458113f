import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { TransactionView } from '../wallet.view';

export class ListWalletTransactionsQuery extends Query<Page<TransactionView>> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
