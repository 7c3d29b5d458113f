import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { CredentialChanges } from '../authentication/credential-changes';
import { EndSessionCommand } from './end-session.command';
import { IdentityErrors } from '../../domain/identity-errors';

@CommandHandler(EndSessionCommand)
export class EndSessionHandler implements ICommandHandler<EndSessionCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly credentials: CredentialChanges,
  ) {}

  /**
   * The NOTIFY evicts the session on every instance once the transaction commits; this instance
   * forgets it at once (see CredentialChanges), so the very next request is refused here.
   */
  @Transactional()
  async execute({ actor }: EndSessionCommand): Promise<void> {
    if (actor.principal.type !== 'user') {
      throw IdentityErrors.NOT_A_SESSION.create('Only a session token can end its own session; revoke API keys instead.');
    }
    const sessionId = actor.principal.credentialId;
    await this.txHost.tx.query(
      'UPDATE sessions SET revoked_at = $3 WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL',
      [actor.organizationId, sessionId, this.clock.now()],
    );
    await this.credentials.sessionChanged(sessionId);
    await this.audit.record(actor, { action: 'session.ended', resourceType: 'session', resourceId: sessionId });
  }
}
