import { Module } from '@nestjs/common';
import { CustomerWallets, HoldForApprovalCommand } from '@app/identity';
import { PlatformOptions, RequiresBusHandlers } from '@app/shared-kernel';
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
import { PaymentProviders } from './application/payment-providers';
import { TopUpSettlement } from './application/top-up-settlement';
import {
  AttachPaymentMethodHandler,
  AutoTopUp,
  CreateTopUpHandler,
  ProcessPaymentWebhookHandler,
  SettleSandboxTopUpHandler,
} from './application/top-up.handlers';
import { PrimaryWallets } from './application/primary-wallets';
import { ListFxRatesHandler, PutFxRateHandler, TransferFundsHandler } from './application/transfer.handlers';
import {
  ApplyMoneyOperationHandler,
  CreateWalletHandler,
  MakePrimaryWalletHandler,
  UpdateWalletSettingsHandler,
} from './application/wallet.handlers';
import { DebitBatchHandler } from './application/debit-batch.handler';
import { GetWalletHandler, ListWalletsHandler, ListWalletTransactionsHandler } from './application/wallet.queries';
import { HoldRepository } from './domain/hold.repository';
import { WalletRepository } from './domain/wallet.repository';
import { WalletEvents } from './application/wallet-events';
import { PaymentMethodStore } from './application/payment-method.store';
import { TypeOrmPaymentMethodStore } from './infrastructure/typeorm-payment-method.store';
import { SandboxPaymentProvider } from './infrastructure/sandbox-payment-provider';
import { TopUpStore } from './application/top-up.store';
import { TypeOrmTopUpStore } from './infrastructure/typeorm-top-up.store';
import { TypeOrmHoldRepository } from './infrastructure/typeorm-hold.repository';
import { TypeOrmWalletRepository } from './infrastructure/typeorm-wallet.repository';

/** Wallets, the ledger, holds, transfers, FX rates, top-ups and the payment-provider port. */
// An adjustment above the approval threshold is held for approval by identity (the host registers IdentityModule).
@RequiresBusHandlers(HoldForApprovalCommand)
@Module({
  providers: [
    WalletEvents,
    { provide: WalletRepository, useClass: TypeOrmWalletRepository },
    { provide: HoldRepository, useClass: TypeOrmHoldRepository },
    SandboxPaymentProvider,
    // The one place a real provider is bound: add its adapter (a PaymentProvider) to `inject` and
    // pass it as the third argument; it then serves every live workspace. Without one, live
    // workspaces use the sandbox in development only, and are refused anywhere else.
    {
      provide: PaymentProviders,
      useFactory: (sandbox: SandboxPaymentProvider, options: PlatformOptions) =>
        new PaymentProviders(sandbox, options.environment),
      inject: [SandboxPaymentProvider, PlatformOptions],
    },
    { provide: PaymentMethodStore, useClass: TypeOrmPaymentMethodStore },
    { provide: TopUpStore, useClass: TypeOrmTopUpStore },
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
    DebitBatchHandler,
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
