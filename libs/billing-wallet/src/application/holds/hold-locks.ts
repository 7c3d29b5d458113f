import { DomainError } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';
import { HoldRepository } from '../../domain/hold.repository';
import { Wallet } from '../../domain/wallet';
import { WalletKey, WalletRepository } from '../../domain/wallet.repository';
import { walletNotFound } from '../wallet-keys';
import { WalletErrors } from '../../domain/wallet-errors';

/** What the hold use cases share: the hold's 404 and the lock order. */

export function holdNotFound(): DomainError {
  return WalletErrors.HOLD_NOT_FOUND.create('No such hold on this wallet.', { param: 'hold_id' });
}

/** Lock order is wallet, then hold: the same everywhere, so hold operations never deadlock. */
export async function lockBoth(
  wallets: WalletRepository,
  holds: HoldRepository,
  key: WalletKey,
  holdId: string,
): Promise<{ wallet: Wallet; hold: Hold }> {
  const wallet = await wallets.lock(key);
  if (!wallet) throw walletNotFound();
  const hold = await holds.lock(key, holdId);
  if (!hold) throw holdNotFound();
  return { wallet, hold };
}
