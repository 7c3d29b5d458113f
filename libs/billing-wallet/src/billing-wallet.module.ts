import { Module } from '@nestjs/common';
import { AdjustApprovalExecutor } from './application/adjust-approval.executor';
import {
  CaptureHoldHandler,
  CreateHoldHandler,
  ExpiredHoldReleaser,
  GetHoldHandler,
  ListPendingHoldsHandler,
  ReleaseHoldHandler,
} from './application/hold.handlers';
import { PromotionalLotExpiry } from './application/lot-expiry';
import { PrimaryWalletOnCustomerCreated } from './application/primary-wallet.subscriber';
import { ListFxRatesHandler, PutFxRateHandler, TransferFundsHandler } from './application/transfer.handlers';
import {
  ApplyMoneyOperationHandler,
  CreateWalletHandler,
  MakePrimaryWalletHandler,
  UpdateWalletSettingsHandler,
} from './application/wallet.handlers';
import { GetWalletHandler, ListWalletsHandler, ListWalletTransactionsHandler } from './application/wallet.queries';
import { HoldRepository } from './domain/hold.repository';
import { WalletRepository } from './domain/wallet.repository';
import { TypeOrmHoldRepository } from './infrastructure/typeorm-hold.repository';
import { TypeOrmWalletRepository } from './infrastructure/typeorm-wallet.repository';

/** Wallets, the ledger, holds, transfers, FX rates, top-ups and the payment-provider port. */
@Module({
  providers: [
    { provide: WalletRepository, useClass: TypeOrmWalletRepository },
    { provide: HoldRepository, useClass: TypeOrmHoldRepository },
    CreateHoldHandler,
    CaptureHoldHandler,
    ReleaseHoldHandler,
    ExpiredHoldReleaser,
    GetHoldHandler,
    ListPendingHoldsHandler,
    CreateWalletHandler,
    UpdateWalletSettingsHandler,
    MakePrimaryWalletHandler,
    ApplyMoneyOperationHandler,
    GetWalletHandler,
    ListWalletsHandler,
    ListWalletTransactionsHandler,
    PrimaryWalletOnCustomerCreated,
    PromotionalLotExpiry,
    PutFxRateHandler,
    ListFxRatesHandler,
    TransferFundsHandler,
    AdjustApprovalExecutor,
  ],
})
export class BillingWalletModule {}
