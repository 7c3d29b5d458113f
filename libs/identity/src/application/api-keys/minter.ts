import { Actor } from '@app/shared-kernel';
import { grantableKeyTypes, Minter } from '../../domain/api-key';

export function minterOf(actor: Actor): Minter {
  return {
    type: actor.principal.type,
    id: actor.principal.id,
    scopes: actor.principal.scopes,
    keyTypes: grantableKeyTypes(actor.workspaceMode),
  };
}
