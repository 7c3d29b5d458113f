import type { SqlWrite } from '@app/shared-kernel';
import { LedgerEntry, Source, Wallet } from './wallet';

export interface WalletKey {
  organizationId: string;
  workspaceId: string;
  walletId: string;
}

export abstract class WalletRepository {
  /** Loads and row-locks the wallet (SELECT … FOR UPDATE) with its open promotional lots. */
  abstract lock(key: WalletKey): Promise<Wallet | undefined>;
  /** Locks several wallets of one workspace in id order, in one round trip; absent ids are missing from the map. */
  abstract lockAll(scope: Omit<WalletKey, 'walletId'>, walletIds: readonly string[]): Promise<Map<string, Wallet>>;
  abstract insert(wallet: Wallet): Promise<void>;
  /**
   * Writes the wallets' rows and every pending ledger line and lot change, together with the
   * writes that belong to the same decision (its audit row, hold, transfer), in one statement.
   * Inside a transaction the statement goes with the transaction's next one (its COMMIT, or the
   * idempotency record and then the COMMIT): its errors surface there, and the transaction rolls back.
   */
  abstract save(wallets: Wallet | readonly Wallet[], ...alongside: SqlWrite[]): Promise<void>;
  /**
   * Many wallets of one workspace (a batch) in one statement of a fixed shape: the wallet rows,
   * ledger lines and lot changes as set-based writes, with the writes alongside.
   */
  abstract saveAll(wallets: readonly Wallet[], ...alongside: SqlWrite[]): Promise<void>;
  /** The credit, debit or adjustment lines that already carry these (wallet, source, reference) triples, in one round trip. */
  abstract findByReferences(
    scope: Omit<WalletKey, 'walletId'>,
    lookups: ReadonlyArray<{ walletId: string; source: Source; reference: string }>,
  ): Promise<Array<{ walletId: string; entry: LedgerEntry }>>;
  abstract findByReference(key: WalletKey, source: Source, reference: string): Promise<LedgerEntry | undefined>;
  abstract demotePrimary(key: Omit<WalletKey, 'walletId'>, customerId: string, exceptWalletId: string): Promise<void>;
}
