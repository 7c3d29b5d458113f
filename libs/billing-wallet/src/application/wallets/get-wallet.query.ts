import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';

export class GetWalletQuery extends Query<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
  ) {
    super();
  }
}
