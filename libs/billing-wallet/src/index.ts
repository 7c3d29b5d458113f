export * from './billing-wallet.module';
export {
  ApplyMoneyOperationCommand,
  CreateWalletCommand,
  GetWalletQuery,
  ListWalletsQuery,
  ListWalletTransactionsQuery,
  MakePrimaryWalletCommand,
  UpdateWalletSettingsCommand,
} from './application/wallet.commands';
export type { MoneyOperationInput, MoneyOperationKind, WalletFilters, WalletSettingsInput } from './application/wallet.commands';
export type { MoneyOperationResult, TransactionView } from './application/wallet.view';
export { transactionResponse, walletResponse } from './application/transaction-response';
export { SOURCES } from './domain/wallet';
export type { Source, Wallet } from './domain/wallet';
