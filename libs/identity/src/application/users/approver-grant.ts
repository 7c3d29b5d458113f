import { Actor } from '@app/shared-kernel';
import { EntityManager } from 'typeorm';
import { Role, scopesOfRole } from '../../domain/scopes';
import { IdentityErrors } from '../../domain/identity-errors';

/** Roles whose users may decide approvals: derived from the role table, never listed twice. */
export function canApprove(role: Role): boolean {
  return scopesOfRole(role).includes('approvals:write');
}

/**
 * A user who can approve is a second pair of eyes: only a human owner may create one, so that
 * neither an API key nor an admin can mint the approvers of their own requests. Read inside
 * the caller's transaction (a role demoted meanwhile counts).
 */
export async function assertMayGrantRole(tx: EntityManager, actor: Actor, role: Role): Promise<void> {
  if (!canApprove(role)) return;
  if (!actor.principal.human) {
    throw IdentityErrors.HUMAN_SESSION_REQUIRED.create(`Only a signed-in owner may create a ${role}, not an API key.`, {
      param: 'role',
      details: { role },
    });
  }
  const [user]: Array<{ role: Role }> = await tx.query('SELECT role FROM users WHERE organization_id = $1 AND id = $2', [
    actor.organizationId,
    actor.principal.id,
  ]);
  if (user?.role !== 'owner') {
    throw IdentityErrors.OWNER_ROLE_REQUIRED.create(`Only an owner may create a ${role}: ${role}s decide approvals.`, {
      param: 'role',
      details: { role },
    });
  }
}
