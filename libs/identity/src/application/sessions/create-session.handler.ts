import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, DomainError, invalidParameter, isUuid, newId } from '@app/shared-kernel';
import { normalizeEmail } from '../../domain/email';
import { UNUSABLE_PASSWORD_HASH, verifyPassword } from '../../domain/password';
import { generateToken, hashToken } from '../../domain/secret-token';
import { CreateSessionCommand, SessionView } from './create-session.command';
import { SignInThrottle } from './sign-in-throttle';
import { IdentityErrors } from '../../domain/identity-errors';

export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

function invalidCredentials(): DomainError {
  return IdentityErrors.INVALID_CREDENTIALS.create('The organization, email or password is incorrect.');
}

@CommandHandler(CreateSessionCommand)
export class CreateSessionHandler implements ICommandHandler<CreateSessionCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly throttle: SignInThrottle,
  ) {}

  /**
   * The attempt is throttled (per account and per address) before anything is looked up. One
   * user at most is looked up, and one scrypt runs whether or not it exists, so an unknown
   * address, a wrong organization and a wrong password take alike and answer alike. Without
   * `organization_id` only a user listed in legacy_sign_ins (by the migration that made addresses
   * unique per organization) is found: what other organizations hold never changes the answer.
   * No transaction is held while scrypt runs.
   */
  async execute({ email, password, organizationId, clientAddress }: CreateSessionCommand): Promise<SessionView> {
    const normalized = normalizeEmail(email);
    const named = organizationId !== undefined && organizationId !== null;
    if (named && !isUuid(organizationId))
      throw invalidParameter('organization_id', 'INVALID_FORMAT', 'organization_id must be a UUID.');
    if (typeof password !== 'string' || password.length === 0) throw invalidCredentials();
    const attempt = { organizationId: named ? organizationId : null, email: normalized, clientAddress };
    await this.throttle.admit(attempt);
    const [user] = await this.txHost.tx.query(
      named
        ? 'SELECT organization_id, id, password_hash FROM users WHERE email = $1 AND organization_id = $2'
        : `SELECT u.organization_id, u.id, u.password_hash
             FROM legacy_sign_ins l JOIN users u ON u.organization_id = l.user_organization_id AND u.id = l.user_id
            WHERE l.email = $1`,
      named ? [normalized, organizationId] : [normalized],
    );
    const matches = await verifyPassword(password, user?.password_hash ?? UNUSABLE_PASSWORD_HASH);
    if (!user || !matches) throw invalidCredentials();
    const session = await this.open(user.organization_id as string, user.id as string);
    await this.throttle.succeeded(attempt);
    return session;
  }

  @Transactional()
  private async open(organizationId: string, userId: string): Promise<SessionView> {
    const now = this.clock.now();
    const token = generateToken('sess');
    const session = {
      id: newId(),
      token,
      userId,
      organizationId,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    };
    await this.txHost.tx.query(
      `INSERT INTO sessions (organization_id, id, user_id, token_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [organizationId, session.id, userId, hashToken(token), session.expiresAt, now],
    );
    await this.audit.record(
      { organizationId, workspaceId: null, principal: { type: 'user', id: userId } },
      { action: 'session.created', resourceType: 'session', resourceId: session.id },
    );
    return session;
  }
}
