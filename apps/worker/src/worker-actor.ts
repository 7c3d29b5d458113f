import { Actor } from '@app/shared-kernel';

/** Whom the worker acts for: a workspace of an organization, as one of its API keys. */
export interface WorkerIdentity {
  organizationId: string;
  workspaceId: string;
  workspaceMode: Actor['workspaceMode'];
  /** The API key the worker's writes are recorded under (audit rows, ledger lines). */
  apiKeyId: string;
  /** What the worker may do; the handlers that check a scope check these. */
  scopes: Iterable<string>;
}

/**
 * The Actor every command and query of the worker carries. The handlers trust the Actor they are
 * given: they scope every read and write to its organization and workspace, but they never check
 * that the principal exists, is not revoked, or was allowed to act there. In apps/api the
 * authentication guard builds the Actor from a verified credential; here the host (whoever
 * configures the worker) is responsible for that authorization.
 */
export function workerActor(identity: WorkerIdentity): Actor {
  return {
    organizationId: identity.organizationId,
    workspaceId: identity.workspaceId,
    workspaceMode: identity.workspaceMode,
    principal: {
      type: 'api_key',
      id: identity.apiKeyId,
      credentialId: identity.apiKeyId,
      human: false,
      scopes: new Set(identity.scopes),
    },
  };
}
