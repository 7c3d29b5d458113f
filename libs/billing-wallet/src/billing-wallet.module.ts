import { Module } from '@nestjs/common';
import { CustomerWallets, HoldForApprovalCommand } from '@app/identity';
import { PlatformOptions, RequiresBusHandlers } from '@app/shared-kernel';
import { AdjustApprovalExecutor } from './application/wallets/adjust-approval.executor';
import { ApplyMoneyOperationHandler } from './application/wallets/apply-money-operation.handler';
import { CreateWalletHandler } from './application/wallets/create-wallet.handler';
import { DebitBatchHandler } from './application/wallets/debit-batch.handler';
import { GetWalletHandler } from './application/wallets/get-wallet.handler';
import { ListWalletTransactionsHandler } from './application/wallets/list-wallet-transactions.handler';
import { ListWalletsHandler } from './application/wallets/list-wallets.handler';
import { PromotionalLotExpiry } from './application/wallets/lot-expiry';
import { MakePrimaryWalletHandler } from './application/wallets/make-primary-wallet.handler';
import { PrimaryWallets } from './application/wallets/primary-wallets';
import { UpdateWalletSettingsHandler } from './application/wallets/update-wallet-settings.handler';
import { WalletReads } from './application/wallets/wallet-reads';
import { CaptureHoldHandler } from './application/holds/capture-hold.handler';
import { CreateHoldHandler } from './application/holds/create-hold.handler';
import { ExpiredHoldReleaser } from './application/holds/expired-hold-releaser';
import { GetHoldHandler } from './application/holds/get-hold.handler';
import { HoldReads } from './application/holds/hold-reads';
import { ListPendingHoldsHandler } from './application/holds/list-pending-holds.handler';
import { ReleaseHoldHandler } from './application/holds/release-hold.handler';
import { AttachPaymentMethodHandler } from './application/payment-methods/attach-payment-method.handler';
import { PaymentMethodStore } from './application/payment-methods/payment-method.store';
import { AutoTopUp } from './application/top-ups/auto-top-up';
import { CreateTopUpHandler } from './application/top-ups/create-top-up.handler';
import { ProcessPaymentWebhookHandler } from './application/top-ups/process-payment-webhook.handler';
import { SandboxWebhooks } from './application/top-ups/sandbox-webhooks';
import { SettleSandboxTopUpHandler } from './application/top-ups/settle-sandbox-top-up.handler';
import { TopUpSettlement } from './application/top-ups/top-up-settlement';
import { TopUpStore } from './application/top-ups/top-up.store';
import { ListFxRatesHandler } from './application/fx-rates/list-fx-rates.handler';
import { PutFxRateHandler } from './application/fx-rates/put-fx-rate.handler';
import { TransferFundsHandler } from './application/transfers/transfer-funds.handler';
import { PaymentProviders } from './application/payment-providers';
import { WalletEvents } from './application/wallet-events';
import { HoldRepository } from './domain/hold.repository';
import { WalletRepository } from './domain/wallet.repository';
import { TypeOrmPaymentMethodStore } from './infrastructure/typeorm-payment-method.store';
import { SandboxPaymentProvider } from './infrastructure/sandbox-payment-provider';
import { TypeOrmTopUpStore } from './infrastructure/typeorm-top-up.store';
import { TypeOrmHoldReads } from './infrastructure/typeorm-hold.reads';
import { TypeOrmHoldRepository } from './infrastructure/typeorm-hold.repository';
import { TypeOrmWalletReads } from './infrastructure/typeorm-wallet.reads';
import { TypeOrmWalletRepository } from './infrastructure/typeorm-wallet.repository';

/** Wallets, the ledger, holds, transfers, FX rates, top-ups and the payment-provider port. */
// An adjustment above the approval threshold is held for approval by identity (the host registers IdentityModule).
@RequiresBusHandlers(HoldForApprovalCommand)
@Module({
  providers: [
    WalletEvents,
    { provide: WalletRepository, useClass: TypeOrmWalletRepository },
    { provide: HoldRepository, useClass: TypeOrmHoldRepository },
    { provide: WalletReads, useClass: TypeOrmWalletReads },
    { provide: HoldReads, useClass: TypeOrmHoldReads },
    SandboxPaymentProvider,
    // The test helpers sign the sandbox's webhooks with the same instance that verifies them.
    { provide: SandboxWebhooks, useExisting: SandboxPaymentProvider },
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
