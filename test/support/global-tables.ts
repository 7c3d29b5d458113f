/** Tables without organization_id: each one's distribution key (if any) and why it has no organization_id. */
export const GLOBAL_TABLES: Record<string, { distributedBy?: string; reason: string }> = {
  organizations: {
    distributedBy: 'id',
    reason: 'the root of every tenant: its id IS the distribution key (distributed by id, colocated with the tenant tables)',
  },
  payment_webhook_events: {
    reason:
      'provider inbox deduplicated by (provider, event_id) before any tenant is known: the event names only a top-up id, ' +
      'and an event for an unknown top-up is still recorded and acknowledged; a coordinator-local table',
  },
  legacy_sign_ins: {
    reason:
      'the one global invariant: an address that signs in without naming its organization identifies one user across ' +
      'all organizations; a coordinator-local (or reference) table looked up before the tenant is known',
  },
};

/** Not the application's tables. pg-boss keeps its own schema (`pgboss`), outside `public`. */
export const NOT_APPLICATION_TABLES = new Set(['schema_migrations']);

/**
 * Tables with organization_id that stay plain tables on the Citus coordinator, each with why.
 */
export const COORDINATOR_TENANT_TABLES: Record<string, string> = {
  rate_limit_windows:
    'UNLOGGED per-request counters: a publication refuses unlogged tables, so inside the shard group they would force ' +
    'tenant moves to block writes for the whole copy (RateLimitWindowsOnCoordinator1763807100000)',
};
