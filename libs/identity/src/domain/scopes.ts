/**
 * Where a resource lives. `workspace`: data of one workspace (or, for API keys, of one mode), so a
 * sandbox principal reaches its own sandbox share of it. `organization`: resources that govern every
 * workspace, live ones included (users, workspaces and their approval settings, the organization-wide
 * audit log): out of reach of a sandbox principal. Every resource must say which (fail closed).
 */
export type ScopeReach = 'workspace' | 'organization';

/** Resources of the contract; each has `<resource>:read` (GET) and `<resource>:write` (the rest). */
const RESOURCES = {
  costs: { noun: 'cost definitions', reach: 'workspace' },
  products: { noun: 'products and their versions', reach: 'workspace' },
  plans: { noun: 'plans, their versions and memberships', reach: 'workspace' },
  changes: { noun: 'catalog changes (publishing, scheduling)', reach: 'workspace' },
  document_templates: { noun: 'document templates, previews and thumbnails', reach: 'workspace' },
  customers: { noun: 'customers and their payment methods', reach: 'workspace' },
  customer_verifications: { noun: 'customer verifications', reach: 'workspace' },
  api_keys: { noun: 'API keys', reach: 'workspace' },
  wallets: { noun: 'wallets, their ledger, holds and top-ups', reach: 'workspace' },
  approvals: { noun: 'human approvals of held requests', reach: 'workspace' },
  workspaces: { noun: 'workspaces and their settings', reach: 'organization' },
  users: { noun: 'users of the organization', reach: 'organization' },
  fx_rates: { noun: 'foreign-exchange rates', reach: 'workspace' },
  audit_events: { noun: 'the audit log', reach: 'organization' },
  webhook_endpoints: { noun: 'webhook endpoints, their secrets and deliveries', reach: 'workspace' },
  events: { noun: 'the events of state changes', reach: 'workspace' },
} satisfies Record<string, { noun: string; reach: ScopeReach }>;

export type ScopeResource = keyof typeof RESOURCES;
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export interface ScopeDescription {
  scope: Scope;
  resource: ScopeResource;
  access: 'read' | 'write';
  description: string;
}

export const SCOPE_CATALOG: readonly ScopeDescription[] = Object.entries(RESOURCES).flatMap(([resource, { noun }]) => [
  {
    scope: `${resource}:read` as Scope,
    resource: resource as ScopeResource,
    access: 'read' as const,
    description: `Read ${noun}.`,
  },
  {
    scope: `${resource}:write` as Scope,
    resource: resource as ScopeResource,
    access: 'write' as const,
    description: `Create, change and act on ${noun}.`,
  },
]);

export const ALL_SCOPES: readonly Scope[] = SCOPE_CATALOG.map((entry) => entry.scope);
const KNOWN = new Set<string>(ALL_SCOPES);

/** Whether a sandbox principal is kept away from the scope's resource (see `ScopeReach`). */
export function isOrganizationLevel(scope: Scope): boolean {
  return RESOURCES[scope.slice(0, scope.indexOf(':')) as ScopeResource].reach === 'organization';
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && KNOWN.has(value);
}

export type Role = 'owner' | 'admin' | 'developer' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

const ADMINISTRATION: ReadonlySet<ScopeResource> = new Set(['api_keys', 'workspaces', 'users', 'approvals']);

/** What a user of each role may do; API keys carry their own scopes. */
export function scopesOfRole(role: Role): readonly Scope[] {
  switch (role) {
    case 'owner':
    case 'admin':
      return ALL_SCOPES;
    case 'developer':
      return SCOPE_CATALOG.filter((entry) => entry.access === 'read' || !ADMINISTRATION.has(entry.resource)).map(
        (entry) => entry.scope,
      );
    case 'viewer':
      return SCOPE_CATALOG.filter((entry) => entry.access === 'read').map((entry) => entry.scope);
  }
}
