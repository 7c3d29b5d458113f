import { LedgerEntry, Wallet } from '../domain/wallet';

/** A wallet as the API shows it; money stays Money until the edge renders it. */
export interface WalletView {
  wallet: Wallet;
}

export interface TransactionView {
  walletId: string;
  currency: string;
  entry: LedgerEntry;
}

export interface MoneyOperationResult {
  transaction: TransactionView;
  /** A repeated (source, reference): the original transaction, nothing applied again. */
  replayed: boolean;
}
