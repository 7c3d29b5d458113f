import { Actor, DomainError } from '@app/shared-kernel';
import { WalletKey } from '../domain/wallet.repository';

export function walletNotFound(): DomainError {
  return new DomainError('not_found', 'WALLET_NOT_FOUND', 'No such wallet.', { param: 'id' });
}

export function keyOf(actor: Actor, walletId: string): WalletKey {
  return { organizationId: actor.organizationId, workspaceId: actor.workspaceId, walletId };
}

export function createdBy(actor: Actor): { type: string; id: string } {
  return { type: actor.principal.type, id: actor.principal.id };
}
