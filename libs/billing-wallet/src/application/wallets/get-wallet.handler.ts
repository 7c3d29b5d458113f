import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid, sameTenant } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { Wallet } from '../../domain/wallet';
import { toWallet, walletSelect, WalletRow } from '../../infrastructure/wallet-rows';
import { walletNotFound } from '../wallet-keys';
import { GetWalletQuery } from './get-wallet.query';

@QueryHandler(GetWalletQuery)
export class GetWalletHandler implements IQueryHandler<GetWalletQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, walletId }: GetWalletQuery): Promise<Wallet> {
    const rows: WalletRow[] = isUuid(walletId)
      ? await this.dataSource.query(
          `SELECT ${walletSelect('$1')} FROM wallets w WHERE w.id = $3 AND ${sameTenant('w', '$1', '$2')}`,
          [actor.organizationId, actor.workspaceId, walletId],
        )
      : [];
    if (!rows[0]) throw walletNotFound();
    return toWallet(rows[0]);
  }
}
