import { LedgerEntry, Source, Wallet } from './wallet';

export interface WalletKey {
  organizationId: string;
  workspaceId: string;
  walletId: string;
}

export abstract class WalletRepository {
  /** Loads and row-locks the wallet (SELECT … FOR UPDATE) with its open promotional lots. */
  abstract lock(key: WalletKey): Promise<Wallet | undefined>;
  abstract insert(wallet: Wallet): Promise<void>;
  /** Writes the wallet row and every pending ledger line and lot change in one statement. */
  abstract save(wallet: Wallet): Promise<void>;
  abstract findByReference(key: WalletKey, source: Source, reference: string): Promise<LedgerEntry | undefined>;
  abstract demotePrimary(key: Omit<WalletKey, 'walletId'>, customerId: string, exceptWalletId: string): Promise<void>;
}
