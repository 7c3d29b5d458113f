import { Actor, principalRef } from '@app/shared-kernel';
import { CreatedBy } from '../domain/version-line';

export function createdByOf(actor: Actor): CreatedBy {
  return principalRef(actor.principal);
}
