/**
 * The catalog of public event types (api-contract §4): every type an event may carry, and so
 * every type a webhook endpoint may subscribe to. A context that writes a type missing here is
 * refused when it writes it (and by the catalog test).
 */
export const EVENT_TYPES = [
  'customer.created',
  'customer_verification.created',
  'customer_verification.updated',
  'api_key.created',
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

const KNOWN = new Set<string>(EVENT_TYPES);

export function isEventType(value: string): value is EventType {
  return KNOWN.has(value);
}
