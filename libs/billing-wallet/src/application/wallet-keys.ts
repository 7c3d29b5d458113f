import { Actor, DomainError } from '@app/shared-kernel';
import { WalletKey } from '../domain/wallet.repository';
import { WalletErrors } from '../domain/wallet-errors';

export function walletNotFound(): DomainError {
  return WalletErrors.WALLET_NOT_FOUND.create('No such wallet.', { param: 'id' });
}

export function keyOf(actor: Actor, walletId: string): WalletKey {
  return { organizationId: actor.organizationId, workspaceId: actor.workspaceId, walletId };
}

export function createdBy(actor: Actor): { type: string; id: string } {
  return { type: actor.principal.type, id: actor.principal.id };
}
