import { DomainError } from './domain-error';
import { defineErrors } from './error-definitions';

/**
 * The codes more than one context refuses with (input, cursors, conflicts, a customer that is not
 * there…), each declared once (see libs/shared-kernel/src/error-definitions.ts): throw sites create
 * their DomainError from these, and a definition with an `example` is a code the API documents
 * (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const SharedErrors = defineErrors({
  VALIDATION_ERROR: { kind: 'invalid_request', example: 'Unknown parameter: colour.', param: 'colour' },
  INVALID_CURSOR: {
    kind: 'invalid_request',
    example: 'The cursor is invalid for this list, its filters or its order.',
    param: 'cursor',
  },
  INVALID_SORT: {
    kind: 'invalid_request',
    example: 'sort takes one of created_at, name, status, description, optionally with :asc or :desc (version is not sortable).',
    param: 'sort',
  },
  CURRENCY_MISMATCH: {
    kind: 'invalid_request',
    example: 'This wallet holds EUR, not USD.',
    param: 'currency',
    details: { wallet_currency: 'EUR', currency: 'USD' },
  },
  UNSUPPORTED_EVENT: { kind: 'invalid_request', example: 'This webhook event type is not supported.' },
  INVALID_SIGNATURE: {
    kind: 'unauthenticated',
    example: 'The webhook signature is missing, invalid or outside the 5-minute window.',
  },
  SANDBOX_ONLY: { kind: 'forbidden', example: 'Test helpers work in sandbox workspaces only.' },
  CUSTOMER_NOT_FOUND: { kind: 'not_found', example: 'No such customer.', param: 'customer_id' },
  UNKNOWN_PROVIDER: { kind: 'not_found', example: 'No provider named "acme" sends webhooks here.' },
  EVENT_NOT_FOUND: { kind: 'not_found', example: 'No such event.' },
  ALREADY_EXISTS: { kind: 'conflict', example: 'This customer already has a wallet in EUR.' },
  CONFLICT: {
    kind: 'conflict',
    example: 'The template was changed since you read it; re-read it and apply your change again.',
    param: 'expected_version',
    details: { current_version: 4 },
  },
  INVALID_STATUS_TRANSITION: {
    kind: 'conflict',
    example: 'A change that is applied cannot become canceled.',
    details: { from: 'applied', to: 'canceled', allowed: [] },
  },
  RATE_LIMITED: {
    kind: 'rate_limited',
    example: 'Rate limit of 1000 requests per minute exceeded.',
    details: { retry_after_seconds: 12 },
  },
  INTERNAL_ERROR: { kind: 'internal' },
});

/** A 400 about one field of the request, e.g. an amount that is not a decimal string. */
export function invalidParameter(param: string, code: string, message: string): DomainError {
  return SharedErrors.VALIDATION_ERROR.create(message, {
    param,
    errors: [{ param, code, message }],
  });
}
