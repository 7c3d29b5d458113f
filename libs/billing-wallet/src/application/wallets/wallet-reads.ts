import { Wallet } from '../../domain/wallet';
import { TransactionView } from '../wallet.view';

/** The workspace a read is confined to. */
export interface WalletScope {
  organizationId: string;
  workspaceId: string;
}

/** The wallet list's filters as its cursor binds them (null: not filtered on); `currency` sorted. */
// A type, not an interface: the cursor binding takes it as a Record<string, unknown>.
export type WalletListFilters = {
  customer_id: string | null;
  currency: string[] | null;
  is_primary: boolean | null;
  auto_topup_enabled: boolean | null;
  /** RFC 3339, inclusive. */
  created_after: string | null;
  /** RFC 3339, exclusive. */
  created_before: string | null;
};

/**
 * The read side of wallets (GET one, the wallet list, a wallet's ledger), outside any transaction:
 * keyset pages newest first, `(created_at, id)` descending. A port (also the DI token); the module
 * binds the adapter (infrastructure/typeorm-wallet.reads.ts).
 */
export abstract class WalletReads {
  /** The workspace's wallet; undefined when there is none. `walletId` is a UUID. */
  abstract find(scope: WalletScope, walletId: string): Promise<Wallet | undefined>;

  /** Up to `limit` wallets after `after` (a position `[created_at, id]`, undefined: from the newest). */
  abstract list(scope: WalletScope, filters: WalletListFilters, after: unknown[] | undefined, limit: number): Promise<Wallet[]>;

  /** Up to `limit` ledger lines of the wallet after `after` (a position `[created_at, id]`). */
  abstract listTransactions(
    scope: WalletScope,
    walletId: string,
    after: unknown[] | undefined,
    limit: number,
  ): Promise<TransactionView[]>;
}
