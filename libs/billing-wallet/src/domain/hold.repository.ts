import type { SqlWrite } from '@app/shared-kernel';
import { Hold } from './hold';
import { WalletKey } from './wallet.repository';

/** A hold's writes go with its wallet's save (`WalletRepository.save(wallet, …)`): one statement. */
export abstract class HoldRepository {
  /** Row-locks the hold; call after locking its wallet (wallet first, always). */
  abstract lock(key: WalletKey, holdId: string): Promise<Hold | undefined>;
  abstract insertion(key: WalletKey, hold: Hold): SqlWrite;
  abstract update(key: WalletKey, hold: Hold): SqlWrite;
}
