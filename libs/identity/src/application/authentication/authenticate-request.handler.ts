import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, Clock, DomainError } from '@app/shared-kernel';
import { hashToken, verifyTokenShape } from '../../domain/secret-token';
import { WorkspaceMode } from '../../domain/workspace';
import { AuthenticateRequestQuery } from './authenticate-request.query';
import { Credential, CredentialCache } from './credential-cache';
import { LastUsedRecorder } from './last-used-recorder';
import { WorkspaceDirectory } from './workspace-directory';
import { IdentityErrors } from '../../domain/identity-errors';

// RFC 9110: the scheme name is case-insensitive.
const BEARER = /^Bearer ([^\s]+)$/i;

function unauthenticated(message: string): DomainError {
  return IdentityErrors.UNAUTHENTICATED.create(message);
}

/**
 * The contract's order of checks: credential (401) → caller address (403) → workspace
 * (404/403). Scope (403) is checked by the HTTP guard against the route's declared scope.
 */
@QueryHandler(AuthenticateRequestQuery)
export class AuthenticateRequestHandler implements IQueryHandler<AuthenticateRequestQuery> {
  constructor(
    private readonly credentials: CredentialCache,
    private readonly workspaces: WorkspaceDirectory,
    private readonly lastUsed: LastUsedRecorder,
    private readonly clock: Clock,
  ) {}

  async execute({ authorization, ip, workspace }: AuthenticateRequestQuery): Promise<Actor> {
    if (!authorization) throw unauthenticated('Send an API key or session token as `Authorization: Bearer <token>`.');
    if (!/^Bearer\s/i.test(authorization)) {
      throw unauthenticated('The Authorization header takes the Bearer scheme: send `Authorization: Bearer <token>`.');
    }
    const token = BEARER.exec(authorization)?.[1];
    const kind = token === undefined ? undefined : verifyTokenShape(token);
    if (!token || !kind) throw unauthenticated('The bearer token is malformed.');
    const credential = await this.credentials.find(hashToken(token), kind === 'sess' ? 'session' : 'api_key');
    if (!credential || (credential.kind === 'api_key' && credential.keyType !== kind)) {
      throw unauthenticated('The bearer token is not recognised.');
    }
    const now = this.clock.now();
    this.assertUsable(credential, now);
    if (credential.kind === 'api_key' && !credential.allowedIps.allows(ip)) {
      throw IdentityErrors.IP_NOT_ALLOWED.create('This API key may not be used from your address.', {
        details: { ip },
      });
    }
    const defaultMode: WorkspaceMode = credential.kind === 'api_key' && credential.keyType === 'sk_test' ? 'sandbox' : 'live';
    const resolved = await this.workspaces.resolve(credential.organizationId, workspace, defaultMode);
    if (credential.kind === 'api_key' && resolved.mode !== defaultMode) {
      throw IdentityErrors.WORKSPACE_MODE_MISMATCH.create(
        `A ${credential.keyType} key cannot be used on a ${resolved.mode} workspace.`,
        { param: 'X-Workspace-Id', details: { key_type: credential.keyType, workspace_mode: resolved.mode } },
      );
    }
    if (credential.kind === 'api_key') this.lastUsed.record(credential.organizationId, credential.id, now);
    return {
      organizationId: credential.organizationId,
      workspaceId: resolved.id,
      workspaceMode: resolved.mode,
      principal: {
        type: credential.kind === 'api_key' ? 'api_key' : 'user',
        id: credential.kind === 'api_key' ? credential.id : credential.userId,
        credentialId: credential.id,
        human: credential.kind === 'session',
        scopes: credential.scopes,
      },
    };
  }

  private assertUsable(credential: Credential, now: Date): void {
    if (credential.kind === 'session') {
      if (credential.revokedAt || credential.expiresAt <= now) throw unauthenticated('The session has ended; sign in again.');
      return;
    }
    const revokedAt = credential.revokedAt ?? credential.revokesAt;
    if (revokedAt && revokedAt <= now) throw IdentityErrors.API_KEY_REVOKED.create('This API key has been revoked.');
    if (credential.expiresAt && credential.expiresAt <= now) {
      throw IdentityErrors.API_KEY_EXPIRED.create('This API key has expired.');
    }
  }
}
