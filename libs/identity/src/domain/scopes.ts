/** Resources of the contract; each has `<resource>:read` (GET) and `<resource>:write` (the rest). */
const RESOURCES = {
  costs: 'cost definitions',
  products: 'products and their versions',
  plans: 'plans, their versions and memberships',
  changes: 'catalog changes (publishing, scheduling)',
  document_templates: 'document templates, previews and thumbnails',
  customers: 'customers and their payment methods',
  customer_verifications: 'customer verifications',
  api_keys: 'API keys',
  wallets: 'wallets, their ledger, holds and top-ups',
  approvals: 'human approvals of held requests',
  workspaces: 'workspaces and their settings',
  users: 'users of the organization',
  fx_rates: 'foreign-exchange rates',
  audit_events: 'the audit log',
} as const;

export type ScopeResource = keyof typeof RESOURCES;
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export interface ScopeDescription {
  scope: Scope;
  resource: ScopeResource;
  access: 'read' | 'write';
  description: string;
}

export const SCOPE_CATALOG: readonly ScopeDescription[] = Object.entries(RESOURCES).flatMap(([resource, noun]) => [
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
