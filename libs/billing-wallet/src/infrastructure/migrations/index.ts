import { MigrationClass } from '@app/shared-kernel';
import { Wallets1763800200000 } from './1763800200000-wallets';
import { WalletLock1763800400000 } from './1763800400000-wallet-lock';
import { HotPathPlans1763800600000 } from './1763800600000-hot-path-plans';
import { PrimaryWalletForEveryCustomer1763800700000 } from './1763800700000-primary-wallet-for-every-customer';
import { FxRatesPerWorkspace1763801200000 } from './1763801200000-fx-rates-per-workspace';
import { LedgerListByPrimaryKey1763809200000 } from './1763809200000-ledger-list-by-primary-key';

/**
 * The wallets' tables and the wallet lock function.
 * A new migration of this context goes in this folder and is appended here; never edited after landing.
 */
export const billingWalletMigrations: readonly MigrationClass[] = [
  Wallets1763800200000,
  WalletLock1763800400000,
  HotPathPlans1763800600000,
  PrimaryWalletForEveryCustomer1763800700000,
  FxRatesPerWorkspace1763801200000,
  LedgerListByPrimaryKey1763809200000,
];
