import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { walletNotFound } from '../wallet-keys';
import { GetWalletQuery } from './get-wallet.query';
import { WalletReads } from './wallet-reads';

@QueryHandler(GetWalletQuery)
export class GetWalletHandler implements IQueryHandler<GetWalletQuery> {
  constructor(private readonly wallets: WalletReads) {}

  async execute({ actor, walletId }: GetWalletQuery): Promise<Wallet> {
    const wallet = isUuid(walletId) ? await this.wallets.find(actor, walletId) : undefined;
    if (!wallet) throw walletNotFound();
    return wallet;
  }
}
