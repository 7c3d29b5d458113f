export * from './billing-wallet.module';
export {
  ApplyMoneyOperationCommand,
  CreateWalletCommand,
  DebitBatchCommand,
  MAX_BATCH_DEBITS,
  GetWalletQuery,
  ListWalletsQuery,
  ListWalletTransactionsQuery,
  MakePrimaryWalletCommand,
  UpdateWalletSettingsCommand,
} from './application/wallet.commands';
export type {
  BatchDebitInput,
  BatchDebitOutcome,
  MoneyOperationInput,
  MoneyOperationKind,
  WalletFilters,
  WalletSettingsInput,
} from './application/wallet.commands';
export type { MoneyOperationResult, TransactionView } from './application/wallet.view';
export { holdResponse, topUpResponse, transactionResponse, walletResponse } from './application/transaction-response';
export {
  CaptureHoldCommand,
  CreateHoldCommand,
  GetHoldQuery,
  ListPendingHoldsQuery,
  ReleaseHoldCommand,
} from './application/hold.commands';
export type { HoldInput } from './application/hold.commands';
export { RELEASE_EXPIRED_HOLD_JOB } from './application/hold.handlers';
export { SOURCES } from './domain/wallet';
export type { Source, Wallet } from './domain/wallet';
export { ListFxRatesQuery, PutFxRateCommand, TransferFundsCommand } from './application/transfer.commands';
export type { FxRateView, TransferResult } from './application/transfer.commands';
export { EXPIRE_PROMOTIONAL_LOTS_JOB } from './application/lot-expiry';
export {
  AttachPaymentMethodCommand,
  CreateTopUpCommand,
  ProcessPaymentWebhookCommand,
  SettleSandboxTopUpCommand,
} from './application/top-up.commands';
export type { PaymentMethodView, TopUpView } from './application/top-up.commands';
export { AUTO_TOP_UP_JOB } from './application/top-up.handlers';
export { SIGNATURE_HEADER } from './infrastructure/sandbox-payment-provider';
export { BatchRejectedError } from './application/debit-batch.handler';
export { billingWalletMigrations } from './infrastructure/migrations';
