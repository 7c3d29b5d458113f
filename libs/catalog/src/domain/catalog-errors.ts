import { DomainError, defineErrors } from '@app/shared-kernel';

/**
 * The catalog context's refusals, each declared once (see
 * libs/shared-kernel/src/error-definitions.ts): throw sites create their DomainError from these,
 * and a definition with an `example` is a code the API documents
 * (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const CatalogErrors = defineErrors({
  INVALID_FILTER: {
    kind: 'invalid_request',
    example: 'Unknown operator starts_with for name: use eq, in or contains.',
    param: 'name.starts_with',
  },
  PUBLISH_VIA_CHANGE_REQUIRED: {
    kind: 'invalid_request',
    example: 'A plan goes live through POST /v1/changes (catalog.publish_version).',
    param: 'status',
  },
  STATUS_NOT_WRITABLE: {
    kind: 'invalid_request',
    example: 'status draft follows from the plan’s versions; only "archived" can be set.',
    param: 'status',
  },
  DRAFT_NOT_SUPPORTED: {
    kind: 'invalid_request',
    example: 'A cost has no draft of its own: its value is versioned through the product or the ORG revision.',
    param: 'save_as_draft',
  },
  PUBLISH_CONTROLS_NOT_ALLOWED: {
    kind: 'invalid_request',
    example: 'effective_at and save_as_draft apply to a value change (amount or expression) only.',
    param: 'effective_at',
  },
  FORMULA_SYNTAX_ERROR: {
    kind: 'invalid_request',
    example: 'Unexpected "*" at position 9: expected a number, a key, a function or "(".',
    param: 'expression',
    details: { position: 9 },
  },
  COST_NOT_FOUND: { kind: 'not_found', example: 'No such cost.', details: { resource: 'cost' } },
  PRODUCT_NOT_FOUND: { kind: 'not_found', example: 'No such product.', details: { resource: 'product' } },
  VERSION_NOT_FOUND: {
    kind: 'not_found',
    example: 'No such version.',
    param: 'staged_version_id',
    details: { resource: 'version' },
  },
  CHANGE_NOT_FOUND: { kind: 'not_found', example: 'No such change.', details: { resource: 'change' } },
  CASCADE_RUN_NOT_FOUND: { kind: 'not_found', example: 'No such cascade run.', details: { resource: 'cascade_run' } },
  PLAN_NOT_FOUND: { kind: 'not_found', example: 'No such plan.', details: { resource: 'plan' } },
  SUBSCRIPTION_NOT_FOUND: { kind: 'not_found', example: 'No such subscription.', details: { resource: 'subscription' } },
  MIGRATION_NOT_FOUND: { kind: 'not_found', example: 'No such migration.', details: { resource: 'migration' } },
  PRODUCT_NOT_ON_PLAN: { kind: 'not_found', example: 'This product is not on the plan.', param: 'product_id' },
  STAGED_DRAFT_NOT_FOUND: { kind: 'not_found', example: 'This product has no staged draft.' },
  COST_NOT_ACTIVE: { kind: 'conflict', example: 'Only an active cost takes a new value; restore it first.' },
  COST_KEY_NOT_IN_HEAD: {
    kind: 'conflict',
    example: 'The live version does not carry the key "seat_price" for this cost.',
    details: { key: 'seat_price' },
  },
  ENTITY_ARCHIVED: { kind: 'conflict', example: 'The product is archived; its content can no longer change.' },
  INVALID_BASE_VERSION: {
    kind: 'conflict',
    example: 'A draft can be based on the live version or a scheduled release only.',
    param: 'base_version_id',
  },
  DRAFT_HAS_STAGED_EDITS: {
    kind: 'conflict',
    example: 'The working draft holds staged edits; discard them before re-basing it.',
    param: 'base_version_id',
  },
  PLAN_BUSY: { kind: 'conflict', example: 'The plan is being changed right now; ask again in a moment.' },
  PUBLISH_NOT_WORKING_DRAFT: { kind: 'conflict', example: 'That version is not the working draft.', param: 'staged_version_id' },
  PUBLISH_ENTITY_ARCHIVED: { kind: 'conflict', example: 'The entity is archived; nothing of it can go live.' },
  PUBLISH_NOTHING_STAGED: { kind: 'conflict', example: 'The working draft holds nothing that differs from the live version.' },
  PUBLISH_SCHEDULE_IN_PAST: { kind: 'conflict', example: 'scheduled_for must be in the future.', param: 'scheduled_for' },
  PUBLISH_SCHEDULE_TAKEN: {
    kind: 'conflict',
    example: 'Another release of this entity is scheduled at that instant.',
    param: 'scheduled_for',
  },
  PUBLISH_BEFORE_BASE_RELEASE: {
    kind: 'conflict',
    example: 'The draft is based on the release of 2027-01-01T00:00:00.000Z; it cannot go live before it.',
    param: 'scheduled_for',
  },
  PUBLISH_BEFORE_COST_EFFECTIVE: {
    kind: 'conflict',
    example: 'A staged cost value takes effect at 2027-01-01T00:00:00.000Z; the draft cannot go live earlier.',
    details: { not_before: '2027-01-01T00:00:00.000Z' },
  },
  PUBLISH_STALE_BASE: {
    kind: 'conflict',
    example:
      'The draft was based on a version that is no longer live, and the live content has changed since; re-base or discard it.',
  },
  PUBLISH_DEPENDENCY_UNPUBLISHED: {
    kind: 'conflict',
    example: 'A product on the plan has never gone live.',
    details: { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' },
  },
  PUBLISH_INVALID_ALLOWANCE: {
    kind: 'conflict',
    example: 'The terms of a membership break a rule: unit_limit must be at least included_quantity.',
    details: { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', rule: 'unit_limit' },
  },
  PUBLISH_CADENCE_MISMATCH: {
    kind: 'conflict',
    example: 'An active subscription that tracks the latest version bills monthly, not yearly.',
    details: { billing_cadence: 'month', price_cadence_unit: 'year' },
  },
  INVALID_TARGET_VERSION: {
    kind: 'conflict',
    example: 'Version 4 of the plan never went live.',
    param: 'target_version',
    details: { target_version: 4 },
  },
  PLAN_VERSION_NOT_LIVE: { kind: 'conflict', example: 'Version 3 of the plan never went live.', param: 'plan_version' },
  PUBLISH_FORMULA_INVALID: {
    kind: 'conflict',
    example: 'The price formula cannot be resolved: Unknown cost key: margin.',
    details: { reason: 'unknown_key', keys: ['margin'] },
  },
  FORMULA_UNKNOWN_KEY: {
    kind: 'rule_violation',
    example: 'Unknown cost key: margin.',
    param: 'expression',
    details: { keys: ['margin'] },
  },
  FORMULA_CYCLE: {
    kind: 'rule_violation',
    example: 'The formula references itself: a → b → a.',
    param: 'expression',
    details: { path: ['a', 'b', 'a'] },
  },
  FORMULA_EVALUATION_ERROR: {
    kind: 'rule_violation',
    example: 'Division by zero in fee / seats.',
    param: 'expression',
    details: { reason: 'division_by_zero' },
  },
  INVALID_MEMBERSHIP: {
    kind: 'rule_violation',
    example: 'rollover_max needs rollover_enabled.',
    param: 'rollover_max',
    details: { rule: 'MUTUALLY_EXCLUSIVE' },
  },
  INVALID_PIN: {
    kind: 'rule_violation',
    example: 'A pin names a product version that never went live.',
    param: 'pins',
    details: { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' },
  },
  BILLING_CADENCE_MISMATCH: {
    kind: 'rule_violation',
    example: 'Version 2 of the plan bills per month, not per year.',
    param: 'billing_cadence',
    details: { billing_cadence: 'year', price_cadence_unit: 'month' },
  },
  CONSUMER_WOULD_BREAK: {
    kind: 'rule_violation',
    example: 'This value would break the price of 1 consuming product(s).',
    details: { products: [{ product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', code: 'PUBLISH_FORMULA_INVALID' }] },
  },
  CASCADE_RETRIES_EXHAUSTED: { kind: 'unavailable' },
});

export type CatalogResource = 'cost' | 'product' | 'plan' | 'version' | 'change' | 'cascade_run' | 'subscription' | 'migration';

const NOT_FOUND = {
  cost: CatalogErrors.COST_NOT_FOUND,
  product: CatalogErrors.PRODUCT_NOT_FOUND,
  version: CatalogErrors.VERSION_NOT_FOUND,
  change: CatalogErrors.CHANGE_NOT_FOUND,
  cascade_run: CatalogErrors.CASCADE_RUN_NOT_FOUND,
  plan: CatalogErrors.PLAN_NOT_FOUND,
  subscription: CatalogErrors.SUBSCRIPTION_NOT_FOUND,
  migration: CatalogErrors.MIGRATION_NOT_FOUND,
} as const satisfies Record<CatalogResource, { code: string }>;

/** Unknown, another tenant's, or (for costs) retired: the same 404, so existence never leaks. */
export function catalogNotFound(param: string | undefined, resource: CatalogResource): DomainError {
  return NOT_FOUND[resource].create(`No such ${resource.replace('_', ' ')}.`, {
    param,
    details: { resource },
  });
}
