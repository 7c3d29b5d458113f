import { Module } from '@nestjs/common';
import { AdjustApprovalExecutor } from './application/adjust-approval.executor';
import { PrimaryWalletOnCustomerCreated } from './application/primary-wallet.subscriber';
import {
  ApplyMoneyOperationHandler,
  CreateWalletHandler,
  MakePrimaryWalletHandler,
  UpdateWalletSettingsHandler,
} from './application/wallet.handlers';
import { GetWalletHandler, ListWalletsHandler, ListWalletTransactionsHandler } from './application/wallet.queries';
import { WalletRepository } from './domain/wallet.repository';
import { TypeOrmWalletRepository } from './infrastructure/typeorm-wallet.repository';

/** Wallets, the ledger, holds, transfers, FX rates, top-ups and the payment-provider port. */
@Module({
  providers: [
    { provide: WalletRepository, useClass: TypeOrmWalletRepository },
    CreateWalletHandler,
    UpdateWalletSettingsHandler,
    MakePrimaryWalletHandler,
    ApplyMoneyOperationHandler,
    GetWalletHandler,
    ListWalletsHandler,
    ListWalletTransactionsHandler,
    PrimaryWalletOnCustomerCreated,
    AdjustApprovalExecutor,
  ],
})
export class BillingWalletModule {}
