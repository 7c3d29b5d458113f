import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';

export interface WalletFilters {
  customerId?: string;
  currencies?: string[];
  isPrimary?: boolean;
  autoTopupEnabled?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
}

export class ListWalletsQuery extends Query<Page<Wallet>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: WalletFilters,
  ) {
    super();
  }
}
