import { SetMetadata } from '@nestjs/common';
import { DomainErrorKind } from '@app/shared-kernel';
import { ErrorBody, httpOfKind } from './error-response';

interface CatalogEntry {
  kind: DomainErrorKind;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

/**
 * The error codes the API documents, each with the kind it is raised with (hence its status and
 * type, through the one mapping in error-response.ts) and a message as the API words it: the
 * OpenAPI document shows each as an example of its status.
 */
const CATALOG = {
  // Input, before or around any handler.
  VALIDATION_ERROR: { kind: 'invalid_request', message: 'Unknown parameter: colour.', param: 'colour' },
  MALFORMED_REQUEST: {
    kind: 'invalid_request',
    message: 'The request body is not valid JSON: syntax error at position 12 (line 1, column 13).',
  },
  INVALID_CURSOR: {
    kind: 'invalid_request',
    message: 'The cursor is invalid for this list, its filters or its order.',
    param: 'cursor',
  },
  INVALID_FILTER: {
    kind: 'invalid_request',
    message: 'Unknown operator starts_with for name: use eq, in or contains.',
    param: 'name.starts_with',
  },
  INVALID_SORT: {
    kind: 'invalid_request',
    message: 'sort takes one of created_at, name, status, description, optionally with :asc or :desc (version is not sortable).',
    param: 'sort',
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    kind: 'invalid_request',
    message: 'Send an Idempotency-Key header with every POST.',
    param: 'Idempotency-Key',
  },
  IDEMPOTENCY_KEY_INVALID: {
    kind: 'invalid_request',
    message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    param: 'Idempotency-Key',
  },
  DUPLICATE_HEADER: { kind: 'invalid_request', message: 'Send the Idempotency-Key header once.', param: 'Idempotency-Key' },
  HEADERS_TOO_LARGE: { kind: 'headers_too_large', message: 'The request headers exceed the 16 KB limit.' },
  PAYLOAD_TOO_LARGE: { kind: 'payload_too_large', message: 'The request body exceeds the 1 MB limit.' },
  UNSUPPORTED_MEDIA_TYPE: { kind: 'unsupported_media_type', message: 'Send the request body as application/json.' },
  CURRENCY_MISMATCH: {
    kind: 'invalid_request',
    message: 'This wallet holds EUR, not USD.',
    param: 'currency',
    details: { wallet_currency: 'EUR', currency: 'USD' },
  },
  PUBLISH_VIA_CHANGE_REQUIRED: {
    kind: 'invalid_request',
    message: 'A plan goes live through POST /v1/changes (catalog.publish_version).',
    param: 'status',
  },
  STATUS_NOT_WRITABLE: {
    kind: 'invalid_request',
    message: 'status draft follows from the plan’s versions; only "archived" can be set.',
    param: 'status',
  },
  FIELD_NOT_ALLOWED: {
    kind: 'invalid_request',
    message: 'effective_at is not a plan field: publish and schedule through POST /v1/changes.',
    param: 'effective_at',
  },
  DRAFT_NOT_SUPPORTED: {
    kind: 'invalid_request',
    message: 'A cost has no draft of its own: its value is versioned through the product or the ORG revision.',
    param: 'save_as_draft',
  },
  PUBLISH_CONTROLS_NOT_ALLOWED: {
    kind: 'invalid_request',
    message: 'effective_at and save_as_draft apply to a value change (amount or expression) only.',
    param: 'effective_at',
  },
  FORMULA_SYNTAX_ERROR: {
    kind: 'invalid_request',
    message: 'Unexpected "*" at position 9: expected a number, a key, a function or "(".',
    param: 'expression',
    details: { position: 9 },
  },
  SAME_WALLET_TRANSFER: { kind: 'invalid_request', message: 'A wallet cannot transfer to itself.', param: 'target_wallet_id' },
  NOT_A_SESSION: { kind: 'invalid_request', message: 'Only a session token can end its own session; revoke API keys instead.' },
  UNSUPPORTED_EVENT: { kind: 'invalid_request', message: 'This webhook event type is not supported.' },
  // Authentication and access.
  UNAUTHENTICATED: {
    kind: 'unauthenticated',
    message: 'Send a valid API key or session token as `Authorization: Bearer <token>`.',
  },
  API_KEY_REVOKED: { kind: 'unauthenticated', message: 'This API key has been revoked.' },
  API_KEY_EXPIRED: { kind: 'unauthenticated', message: 'This API key has expired.' },
  INVALID_CREDENTIALS: { kind: 'unauthenticated', message: 'The email or password is wrong.' },
  INVALID_SIGNATURE: {
    kind: 'unauthenticated',
    message: 'The webhook signature is missing, invalid or outside the 5-minute window.',
  },
  IP_NOT_ALLOWED: { kind: 'forbidden', message: 'This API key may not be used from 198.51.100.7.' },
  SANDBOX_PRINCIPAL_FORBIDDEN: {
    kind: 'forbidden',
    message: 'A sandbox principal cannot reach organization-level resources; use a live key or session.',
  },
  EXPIRY_NOT_GRANTABLE: {
    kind: 'forbidden',
    message: 'A minted key cannot outlive the key that mints it.',
    param: 'expires_at',
  },
  IP_RANGE_NOT_GRANTABLE: {
    kind: 'forbidden',
    message: 'A minted key cannot reach addresses outside the minting key’s allowed_ips.',
    param: 'allowed_ips',
  },
  OWNER_ROLE_REQUIRED: { kind: 'forbidden', message: 'Only an owner may create an admin: admins decide approvals.' },
  WORKSPACE_FORBIDDEN: { kind: 'forbidden', message: 'This workspace belongs to another organization.' },
  WORKSPACE_MODE_MISMATCH: { kind: 'forbidden', message: 'An sk_test_ key cannot act on a live workspace.' },
  INSUFFICIENT_SCOPE: {
    kind: 'forbidden',
    message: 'This request requires the wallets:write scope.',
    details: { required_scope: 'wallets:write' },
  },
  SCOPE_NOT_GRANTABLE: { kind: 'forbidden', message: 'You cannot grant a scope you do not hold: users:write.', param: 'scopes' },
  KEY_TYPE_NOT_GRANTABLE: { kind: 'forbidden', message: 'A sandbox principal cannot obtain an sk_live_ key.', param: 'key_type' },
  HUMAN_SESSION_REQUIRED: { kind: 'forbidden', message: 'Approvals are decided by a signed-in user, not an API key.' },
  SELF_APPROVAL_FORBIDDEN: { kind: 'forbidden', message: 'The requester cannot decide their own approval.' },
  SANDBOX_ONLY: { kind: 'forbidden', message: 'Test helpers work in sandbox workspaces only.' },
  // Existence: another tenant's resource is a 404 too.
  WORKSPACE_NOT_FOUND: { kind: 'not_found', message: 'No workspace "eu-sandbox" in this organization.' },
  WALLET_NOT_FOUND: { kind: 'not_found', message: 'No such wallet.' },
  HOLD_NOT_FOUND: { kind: 'not_found', message: 'No such hold on this wallet.' },
  CUSTOMER_NOT_FOUND: { kind: 'not_found', message: 'No such customer.', param: 'customer_id' },
  API_KEY_NOT_FOUND: { kind: 'not_found', message: 'No such API key.' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { kind: 'not_found', message: 'No such webhook endpoint.', param: 'id' },
  WEBHOOK_URL_NOT_ALLOWED: {
    kind: 'invalid_request',
    message:
      "The url's host hooks.internal.example resolves to 10.0.0.7, which may not receive webhooks (10.0.0.7 is a private address).",
    param: 'url',
  },
  APPROVAL_NOT_FOUND: { kind: 'not_found', message: 'No such approval.' },
  TOP_UP_NOT_FOUND: { kind: 'not_found', message: 'No such top-up.' },
  PAYMENT_METHOD_NOT_FOUND: {
    kind: 'not_found',
    message: 'No such payment method for this customer.',
    param: 'payment_method_id',
  },
  UNKNOWN_PROVIDER: { kind: 'not_found', message: 'No provider named "acme" sends webhooks here.' },
  VERIFICATION_NOT_FOUND: { kind: 'not_found', message: 'No such customer verification.' },
  DOCUMENT_TEMPLATE_NOT_FOUND: { kind: 'not_found', message: 'No such document template.' },
  EVENT_NOT_FOUND: { kind: 'not_found', message: 'No such event.' },
  COST_NOT_FOUND: { kind: 'not_found', message: 'No such cost.', details: { resource: 'cost' } },
  PRODUCT_NOT_FOUND: { kind: 'not_found', message: 'No such product.', details: { resource: 'product' } },
  VERSION_NOT_FOUND: {
    kind: 'not_found',
    message: 'No such version.',
    param: 'staged_version_id',
    details: { resource: 'version' },
  },
  CHANGE_NOT_FOUND: { kind: 'not_found', message: 'No such change.', details: { resource: 'change' } },
  CASCADE_RUN_NOT_FOUND: { kind: 'not_found', message: 'No such cascade run.', details: { resource: 'cascade_run' } },
  PLAN_NOT_FOUND: { kind: 'not_found', message: 'No such plan.', details: { resource: 'plan' } },
  SUBSCRIPTION_NOT_FOUND: { kind: 'not_found', message: 'No such subscription.', details: { resource: 'subscription' } },
  MIGRATION_NOT_FOUND: { kind: 'not_found', message: 'No such migration.', details: { resource: 'migration' } },
  PRODUCT_NOT_ON_PLAN: { kind: 'not_found', message: 'This product is not on the plan.', param: 'product_id' },
  STAGED_DRAFT_NOT_FOUND: { kind: 'not_found', message: 'This product has no staged draft.' },
  // State and rules.
  ALREADY_EXISTS: { kind: 'conflict', message: 'This customer already has a wallet in EUR.' },
  CONFLICT: {
    kind: 'conflict',
    message: 'The template was changed since you read it; re-read it and apply your change again.',
    param: 'expected_version',
    details: { current_version: 4 },
  },
  SYSTEM_TEMPLATE_READ_ONLY: {
    kind: 'conflict',
    message: 'System templates cannot be changed or deleted; copy one to make your own.',
    details: { template_id: '00000000-0000-4000-8000-000000000001' },
  },
  RENDER_LIMIT_EXCEEDED: {
    kind: 'rule_violation',
    message: 'This document would take more than 50 pages to render; shorten its text or use fewer blocks or line breaks.',
    param: 'template_json',
    details: { limit: 50, measure: 'pages' },
  },
  RENDER_BUDGET_EXCEEDED: {
    kind: 'unavailable',
    message: 'The render ran past its time budget of 15000 ms and was stopped.',
    details: { budget: 'time', limit: 15000, retry_after_seconds: 5 },
  },
  NOT_DEFAULT_HOLDER: {
    kind: 'conflict',
    message: "This template is not the workspace's default invoice template.",
    param: 'document_type',
    details: { document_type: 'invoice', holder_template_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d21' },
  },
  DEFAULT_NOT_ALLOWED: {
    kind: 'conflict',
    message: 'This template does not lay out quote documents.',
    param: 'document_type',
    details: { reason: 'document_type_not_in_template', document_type: 'quote', document_types: ['invoice'] },
  },
  ANCHOR_ALREADY_PUBLISHED: {
    kind: 'conflict',
    message: 'Another e-mail template is already published for invoice.finalized; return it to draft or archive it first.',
    param: 'status',
    details: { anchor_key: 'invoice.finalized', template_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d22' },
  },
  HOLD_NOT_PENDING: { kind: 'conflict', message: 'This hold is no longer pending.' },
  API_KEY_NOT_ACTIVE: { kind: 'conflict', message: 'Only an active key can be rotated.' },
  INVALID_STATUS_TRANSITION: {
    kind: 'conflict',
    message: 'A change that is applied cannot become canceled.',
    details: { from: 'applied', to: 'canceled', allowed: [] },
  },
  COST_NOT_ACTIVE: { kind: 'conflict', message: 'Only an active cost takes a new value; restore it first.' },
  COST_KEY_NOT_IN_HEAD: {
    kind: 'conflict',
    message: 'The live version does not carry the key "seat_price" for this cost.',
    details: { key: 'seat_price' },
  },
  ENTITY_ARCHIVED: { kind: 'conflict', message: 'The product is archived; its content can no longer change.' },
  INVALID_BASE_VERSION: {
    kind: 'conflict',
    message: 'A draft can be based on the live version or a scheduled release only.',
    param: 'base_version_id',
  },
  DRAFT_HAS_STAGED_EDITS: {
    kind: 'conflict',
    message: 'The working draft holds staged edits; discard them before re-basing it.',
    param: 'base_version_id',
  },
  PLAN_BUSY: { kind: 'conflict', message: 'The plan is being changed right now; ask again in a moment.' },
  PUBLISH_NOT_WORKING_DRAFT: { kind: 'conflict', message: 'That version is not the working draft.', param: 'staged_version_id' },
  PUBLISH_ENTITY_ARCHIVED: { kind: 'conflict', message: 'The entity is archived; nothing of it can go live.' },
  PUBLISH_NOTHING_STAGED: { kind: 'conflict', message: 'The working draft holds nothing that differs from the live version.' },
  PUBLISH_SCHEDULE_IN_PAST: { kind: 'conflict', message: 'scheduled_for must be in the future.', param: 'scheduled_for' },
  PUBLISH_SCHEDULE_TAKEN: {
    kind: 'conflict',
    message: 'Another release of this entity is scheduled at that instant.',
    param: 'scheduled_for',
  },
  PUBLISH_BEFORE_BASE_RELEASE: {
    kind: 'conflict',
    message: 'The draft is based on the release of 2027-01-01T00:00:00.000Z; it cannot go live before it.',
    param: 'scheduled_for',
  },
  PUBLISH_BEFORE_COST_EFFECTIVE: {
    kind: 'conflict',
    message: 'A staged cost value takes effect at 2027-01-01T00:00:00.000Z; the draft cannot go live earlier.',
    details: { not_before: '2027-01-01T00:00:00.000Z' },
  },
  PUBLISH_STALE_BASE: {
    kind: 'conflict',
    message:
      'The draft was based on a version that is no longer live, and the live content has changed since; re-base or discard it.',
  },
  PUBLISH_DEPENDENCY_UNPUBLISHED: {
    kind: 'conflict',
    message: 'A product on the plan has never gone live.',
    details: { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' },
  },
  PUBLISH_INVALID_ALLOWANCE: {
    kind: 'conflict',
    message: 'The terms of a membership break a rule: unit_limit must be at least included_quantity.',
    details: { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', rule: 'unit_limit' },
  },
  PUBLISH_CADENCE_MISMATCH: {
    kind: 'conflict',
    message: 'An active subscription that tracks the latest version bills monthly, not yearly.',
    details: { billing_cadence: 'month', price_cadence_unit: 'year' },
  },
  INVALID_TARGET_VERSION: {
    kind: 'conflict',
    message: 'Version 4 of the plan never went live.',
    param: 'target_version',
    details: { target_version: 4 },
  },
  PLAN_VERSION_NOT_LIVE: { kind: 'conflict', message: 'Version 3 of the plan never went live.', param: 'plan_version' },
  PUBLISH_FORMULA_INVALID: {
    kind: 'conflict',
    message: 'The price formula cannot be resolved: Unknown cost key: margin.',
    details: { reason: 'unknown_key', keys: ['margin'] },
  },
  REFERENCE_ALREADY_USED: {
    kind: 'conflict',
    message: 'This source and reference already name another operation on this wallet.',
    param: 'reference',
    details: { transaction_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0e' },
  },
  APPROVAL_REQUIRED_HUMAN: {
    kind: 'conflict',
    message: 'This workspace requires a human approval for wallet.adjust; sign in to request it.',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    kind: 'idempotency_conflict',
    message: 'A request with this Idempotency-Key is still being processed.',
    param: 'Idempotency-Key',
  },
  IDEMPOTENCY_KEY_ALREADY_PROCESSED: {
    kind: 'idempotency_completed',
    // A transfer's key names its transfer; a key whose response was too large to keep says so instead.
    message: 'This Idempotency-Key was already used for a completed request.',
    param: 'Idempotency-Key',
    details: { transfer_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0d' },
  },
  IDEMPOTENCY_KEY_REUSED: {
    kind: 'idempotency_mismatch',
    message: 'This Idempotency-Key was used with a different request body or query.',
    param: 'Idempotency-Key',
  },
  INSUFFICIENT_FUNDS: {
    kind: 'rule_violation',
    message: 'The wallet cannot cover this amount, credit limit included.',
    param: 'amount',
    details: { requested: '120.00', spendable: '95.00', currency: 'EUR' },
  },
  BATCH_REJECTED: {
    kind: 'rule_violation',
    message: '1 item(s) of this atomic batch were refused; none was applied.',
    param: 'debits',
    details: {
      items: [
        {
          index: 1,
          status: 422,
          error: {
            type: 'business_rule_error',
            code: 'INSUFFICIENT_FUNDS',
            message: 'The wallet cannot cover this amount, credit limit included.',
            param: 'amount',
            status: 422,
            request_id: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69',
            details: { requested: '120.00', spendable: '95.00', currency: 'EUR' },
          },
        },
      ],
    },
  },
  LIMIT_EXCEEDED: {
    kind: 'rule_violation',
    message: "This would exceed the wallet's max_single_credit of 2500.00 EUR.",
    param: 'amount',
    details: { limit: 'max_single_credit', value: '2500.00' },
  },
  FORMULA_UNKNOWN_KEY: {
    kind: 'rule_violation',
    message: 'Unknown cost key: margin.',
    param: 'expression',
    details: { keys: ['margin'] },
  },
  FORMULA_CYCLE: {
    kind: 'rule_violation',
    message: 'The formula references itself: a → b → a.',
    param: 'expression',
    details: { path: ['a', 'b', 'a'] },
  },
  FORMULA_EVALUATION_ERROR: {
    kind: 'rule_violation',
    message: 'Division by zero in fee / seats.',
    param: 'expression',
    details: { reason: 'division_by_zero' },
  },
  INVALID_MEMBERSHIP: {
    kind: 'rule_violation',
    message: 'rollover_max needs rollover_enabled.',
    param: 'rollover_max',
    details: { rule: 'MUTUALLY_EXCLUSIVE' },
  },
  INVALID_PIN: {
    kind: 'rule_violation',
    message: 'A pin names a product version that never went live.',
    param: 'pins',
    details: { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07' },
  },
  BILLING_CADENCE_MISMATCH: {
    kind: 'rule_violation',
    message: 'Version 2 of the plan bills per month, not per year.',
    param: 'billing_cadence',
    details: { billing_cadence: 'year', price_cadence_unit: 'month' },
  },
  CONSUMER_WOULD_BREAK: {
    kind: 'rule_violation',
    message: 'This value would break the price of 1 consuming product(s).',
    details: { products: [{ product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', code: 'PUBLISH_FORMULA_INVALID' }] },
  },
  CAPTURE_EXCEEDS_HOLD: { kind: 'rule_violation', message: 'The capture exceeds the hold’s amount.', param: 'amount' },
  CREDIT_LIMIT_BELOW_BALANCE: {
    kind: 'rule_violation',
    message: 'The wallet is already further below zero than this credit limit allows.',
    param: 'credit_limit',
  },
  AUTO_TOPUP_INCOMPLETE: {
    kind: 'rule_violation',
    message: 'Automatic top-up needs low_balance_threshold, auto_topup_amount and a payment method.',
  },
  FX_RATE_NOT_CONFIGURED: { kind: 'rule_violation', message: 'No FX rate from EUR to USD is configured.' },
  PAYMENT_FAILED: { kind: 'payment_declined', message: 'Your card was declined.', details: { failure_code: 'card_declined' } },
  PAYMENT_PROVIDER_NOT_CONFIGURED: {
    kind: 'unavailable',
    message: 'No payment provider is configured for live payments.',
  },
  DATABASE_UNAVAILABLE: {
    kind: 'unavailable',
    message: 'The database is unavailable: retry shortly.',
    details: { retry_after_seconds: 1 },
  },
  SHUTTING_DOWN: {
    kind: 'unavailable',
    message: 'This server is shutting down: retry on a new connection.',
    details: { retry_after_seconds: 1 },
  },
  RATE_LIMITED: {
    kind: 'rate_limited',
    message: 'Rate limit of 1000 requests per minute exceeded.',
    details: { retry_after_seconds: 12 },
  },
} satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof CATALOG;

export function statusOf(code: ErrorCode): number {
  return httpOfKind(CATALOG[code].kind).status;
}

/** The error body the API answers with this code, as an OpenAPI example shows it. */
export function exampleBody(code: ErrorCode): ErrorBody {
  const entry: CatalogEntry = CATALOG[code];
  const { status, type } = httpOfKind(entry.kind);
  return {
    error: {
      type,
      code,
      message: entry.message,
      ...(entry.param !== undefined && { param: entry.param }),
      status,
      request_id: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69',
      ...(entry.details !== undefined && { details: entry.details }),
    },
  };
}

export const API_ERRORS = 'billing:api-errors';

/**
 * The refusals a route's own handler can answer. Those its metadata already implies
 * (authentication, scope, input, idempotency, rate limit) are added by the OpenAPI builder.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator {
  return SetMetadata(API_ERRORS, codes);
}
