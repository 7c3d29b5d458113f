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
