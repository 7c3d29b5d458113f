import { Module } from '@nestjs/common';
import { CustomerWallets } from '@app/identity';
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
import {
  AttachPaymentMethodHandler,
  AutoTopUp,
  CreateTopUpHandler,
  ProcessPaymentWebhookHandler,
  SettleSandboxTopUpHandler,
  TopUpSettlement,
} from './application/top-up.handlers';
import { PrimaryWallets } from './application/primary-wallets';
import { ListFxRatesHandler, PutFxRateHandler, TransferFundsHandler } from './application/transfer.handlers';
import {
  ApplyMoneyOperationHandler,
  CreateWalletHandler,
  MakePrimaryWalletHandler,
  UpdateWalletSettingsHandler,
} from './application/wallet.handlers';
import { GetWalletHandler, ListWalletsHandler, ListWalletTransactionsHandler } from './application/wallet.queries';
import { HoldRepository } from './domain/hold.repository';
import { PaymentProvider } from './domain/payment-provider';
import { WalletRepository } from './domain/wallet.repository';
import { SandboxPaymentProvider } from './infrastructure/sandbox-payment-provider';
import { TopUpStore } from './infrastructure/top-up.store';
import { TypeOrmHoldRepository } from './infrastructure/typeorm-hold.repository';
import { TypeOrmWalletRepository } from './infrastructure/typeorm-wallet.repository';

/** Wallets, the ledger, holds, transfers, FX rates, top-ups and the payment-provider port. */
@Module({
  providers: [
    { provide: WalletRepository, useClass: TypeOrmWalletRepository },
    { provide: HoldRepository, useClass: TypeOrmHoldRepository },
    SandboxPaymentProvider,
    // The one place a real provider adapter replaces the sandbox.
    { provide: PaymentProvider, useExisting: SandboxPaymentProvider },
    TopUpStore,
    TopUpSettlement,
    AttachPaymentMethodHandler,
    CreateTopUpHandler,
    ProcessPaymentWebhookHandler,
    SettleSandboxTopUpHandler,
    AutoTopUp,
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
    { provide: CustomerWallets, useClass: PrimaryWallets },
    PromotionalLotExpiry,
    PutFxRateHandler,
    ListFxRatesHandler,
    TransferFundsHandler,
    AdjustApprovalExecutor,
  ],
  // Identity opens and names a customer's primary wallet through it (IdentityModule.register).
  exports: [CustomerWallets],
})
export class BillingWalletModule {}
