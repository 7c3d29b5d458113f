/**
 * The one error type the domain and application layers throw. `code` is the stable
 * UPPER_SNAKE machine code of the API contract; `kind` says what went wrong in business
 * terms, and the HTTP edge alone maps it to a status and an error `type`.
 */
export type DomainErrorKind =
  | 'invalid_request'
  | 'not_found'
  | 'unauthenticated'
  | 'forbidden'
  | 'conflict'
  | 'idempotency_conflict'
  | 'idempotency_mismatch'
  | 'idempotency_completed'
  | 'rule_violation'
  | 'payment_declined'
  | 'rate_limited'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'upstream_failure'
  | 'unavailable'
  | 'internal';

export interface FieldError {
  param: string;
  code: string;
  message: string;
}

export interface DomainErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  errors?: FieldError[];
}

export class DomainError extends Error {
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly errors?: FieldError[];

  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.param = options.param;
    this.details = options.details;
    this.errors = options.errors;
  }
}
