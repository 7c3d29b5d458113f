import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter, newId, SharedErrors } from '@app/shared-kernel';
import { normalizeEmail } from '../../domain/email';
import { assertAcceptablePassword, hashPassword } from '../../domain/password';
import { Role, ROLES, scopesOfRole } from '../../domain/scopes';
import { assertMayGrantRole } from './approver-grant';
import { CreateUserCommand } from './create-user.command';
import { UserView } from './user.view';
import { UserRow, toView } from './user-rows';
import { IdentityErrors } from '../../domain/identity-errors';

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateUserCommand): Promise<UserView> {
    const email = normalizeEmail(input.email);
    if (!ROLES.includes(input.role as Role))
      throw invalidParameter('role', 'INVALID_VALUE', `role must be one of ${ROLES.join(', ')}.`);
    const role = input.role as Role;
    const missing = scopesOfRole(role).filter((scope) => !actor.principal.scopes.has(scope));
    if (missing.length > 0) {
      throw IdentityErrors.SCOPE_NOT_GRANTABLE.create(`You cannot create a ${role}: it holds scopes you do not.`, {
        param: 'role',
        details: { not_grantable: missing },
      });
    }
    await assertMayGrantRole(this.txHost.tx, actor, role);
    assertAcceptablePassword(input.password);
    const rows: UserRow[] = await this.txHost.tx.query(
      `INSERT INTO users (organization_id, id, email, password_hash, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organization_id, email) DO NOTHING RETURNING id, email, role, created_at`,
      [actor.organizationId, newId(), email, await hashPassword(input.password), role, this.clock.now()],
    );
    if (!rows[0])
      throw SharedErrors.ALREADY_EXISTS.create('A user with this email already exists in this organization.', {
        param: 'email',
      });
    await this.audit.record(actor, { action: 'user.created', resourceType: 'user', resourceId: rows[0].id, data: { role } });
    return toView(rows[0]);
  }
}
