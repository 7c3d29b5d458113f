/** Who is acting and where: carried explicitly by every command and query of a tenant. */
export interface Actor {
  organizationId: string;
  workspaceId: string;
  workspaceMode: 'live' | 'sandbox';
  principal: Principal;
}

export interface Principal {
  type: 'api_key' | 'user';
  /** The API key's id, or the user's id for a session. */
  id: string;
  /** The API key's or the session's id: what a sign-out or a rotation acts on. */
  credentialId: string;
  /** Human principals (user sessions) may decide approvals; API keys never. */
  human: boolean;
  scopes: ReadonlySet<string>;
}

/** The principal as recorded in rows and responses. */
export function principalRef(principal: Principal): { type: Principal['type']; id: string } {
  return { type: principal.type, id: principal.id };
}
