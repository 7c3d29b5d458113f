/**
 * The catalog of event types (api-contract.md §4): every event the API emits has one of these
 * types, and webhook endpoints subscribe to them. One list for the contexts that emit events, the
 * event reads (`GET /v1/events?type=`) and webhook endpoints' `enabled_events`.
 */
export const EVENT_TYPES = [
  'customer.created',
  'customer_verification.created',
  'customer_verification.updated',
  'api_key.created',
  'api_key.updated',
  'api_key.rotated',
  'api_key.revoked',
  'wallet.created',
  'wallet.updated',
  'wallet.transaction.created',
  'wallet.balance_low',
  'wallet.hold.created',
  'wallet.hold.captured',
  'wallet.hold.released',
  'wallet.top_up.created',
  'wallet.top_up.succeeded',
  'wallet.top_up.failed',
  'approval_request.created',
  'approval_request.approved',
  'approval_request.rejected',
  'cost.created',
  'cost.updated',
  'cost.removed',
  'cost.restored',
  'product.created',
  'product.updated',
  'product.version.published',
  'plan.created',
  'plan.updated',
  'plan.deleted',
  'plan.version.published',
  'plan.version.scheduled',
  'plan.version.archived',
  'change.applied',
  'change.canceled',
  'cascade_run.completed',
  'plan_migration.completed',
  'subscription.created',
  'subscription.canceled',
  'subscription.version_changed',
  'document_template.created',
  'document_template.updated',
  'document_template.deleted',
  'document_template.default_changed',
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Every `prefix.*` that names at least one type: `wallet.*`, `wallet.hold.*`, `plan.version.*`, … */
const KNOWN_PREFIXES: ReadonlySet<string> = new Set(
  EVENT_TYPES.flatMap((type) => {
    const parts = type.split('.');
    return parts.slice(1).map((_, index) => `${parts.slice(0, index + 1).join('.')}.*`);
  }),
);

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && KNOWN_TYPES.has(value);
}

/**
 * A type filter: `*` (every type), an exact type of the catalog, or `prefix.*` where the prefix is
 * whole segments of at least one catalog type (`wallet.*`, `wallet.hold.*`; not `wal*`, `foo.*`).
 */
export function isEventTypeFilter(value: unknown): value is string {
  return typeof value === 'string' && (value === '*' || KNOWN_TYPES.has(value) || KNOWN_PREFIXES.has(value));
}

/** Whether a type is selected by one filter (`*`, exact, or `prefix.*`). */
export function eventTypeMatches(filter: string, type: string): boolean {
  if (filter === '*') return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return filter === type;
}

/** Whether a type is selected by any of the filters. */
export function eventTypeSelected(filters: readonly string[], type: string): boolean {
  return filters.some((filter) => eventTypeMatches(filter, type));
}
