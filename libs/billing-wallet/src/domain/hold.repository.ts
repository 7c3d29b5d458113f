import { Hold } from './hold';
import { WalletKey } from './wallet.repository';

export abstract class HoldRepository {
  /** Row-locks the hold; call after locking its wallet (wallet first, always). */
  abstract lock(key: WalletKey, holdId: string): Promise<Hold | undefined>;
  abstract insert(key: WalletKey, hold: Hold): Promise<void>;
  abstract save(key: WalletKey, hold: Hold): Promise<void>;
}
