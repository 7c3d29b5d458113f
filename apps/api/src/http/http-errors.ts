import { defineErrors } from '@app/shared-kernel';

/**
 * The HTTP edge's own refusals (request framing, headers, idempotency, authorization,
 * availability), each declared once (see libs/shared-kernel/src/error-definitions.ts): throw sites
 * create their DomainError from these, and a definition with an `example` is a code the API
 * documents (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const HttpErrors = defineErrors({
  MALFORMED_REQUEST: {
    kind: 'invalid_request',
    example: 'The request body is not valid JSON: syntax error at position 12 (line 1, column 13).',
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    kind: 'invalid_request',
    example: 'Send an Idempotency-Key header with every POST.',
    param: 'Idempotency-Key',
  },
  IDEMPOTENCY_KEY_INVALID: {
    kind: 'invalid_request',
    example: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    param: 'Idempotency-Key',
  },
  DUPLICATE_HEADER: { kind: 'invalid_request', example: 'Send the Idempotency-Key header once.', param: 'Idempotency-Key' },
  HEADERS_TOO_LARGE: { kind: 'headers_too_large', example: 'The request headers exceed the 16 KB limit.' },
  PAYLOAD_TOO_LARGE: { kind: 'payload_too_large', example: 'The request body exceeds the 1 MB limit.' },
  UNSUPPORTED_MEDIA_TYPE: { kind: 'unsupported_media_type', example: 'Send the request body as application/json.' },
  FIELD_NOT_ALLOWED: {
    kind: 'invalid_request',
    example: 'effective_at is not a plan field: publish and schedule through POST /v1/changes.',
    param: 'effective_at',
  },
  SANDBOX_PRINCIPAL_FORBIDDEN: {
    kind: 'forbidden',
    example: 'A sandbox principal cannot reach organization-level resources; use a live key or session.',
  },
  INSUFFICIENT_SCOPE: {
    kind: 'forbidden',
    example: 'This request requires the wallets:write scope.',
    details: { required_scope: 'wallets:write' },
  },
  IDEMPOTENCY_KEY_IN_USE: {
    kind: 'idempotency_conflict',
    example: 'A request with this Idempotency-Key is still being processed.',
    param: 'Idempotency-Key',
  },
  IDEMPOTENCY_KEY_ALREADY_PROCESSED: {
    kind: 'idempotency_completed',
    example: 'This Idempotency-Key was already used for a completed request.',
    param: 'Idempotency-Key',
    details: { transfer_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0d' },
  },
  IDEMPOTENCY_KEY_REUSED: {
    kind: 'idempotency_mismatch',
    example: 'This Idempotency-Key was used with a different request body or query.',
    param: 'Idempotency-Key',
  },
  DATABASE_UNAVAILABLE: {
    kind: 'unavailable',
    example: 'The database is unavailable: retry shortly.',
    details: { retry_after_seconds: 1 },
  },
  SHUTTING_DOWN: {
    kind: 'unavailable',
    example: 'This server is shutting down: retry on a new connection.',
    details: { retry_after_seconds: 1 },
  },
  METHOD_NOT_ALLOWED: { kind: 'method_not_allowed' },
  ROUTE_NOT_FOUND: { kind: 'not_found' },
});
