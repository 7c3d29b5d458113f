import { HttpException } from '@nestjs/common';
import {
  DomainError,
  DomainErrorKind,
  FieldError,
  isDatabaseUnavailable,
  isTransientWriteFailure,
  StaleWriteError,
  SharedErrors,
} from '@app/shared-kernel';
import { HttpErrors } from './http-errors';

export interface ErrorBody {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    status: number;
    request_id: string;
    details?: Record<string, unknown>;
    errors?: FieldError[];
  };
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

const KIND_TO_HTTP: Record<DomainErrorKind, { status: number; type: string }> = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  not_found: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  headers_too_large: { status: 431, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  unauthenticated: { status: 401, type: 'authentication_error' },
  forbidden: { status: 403, type: 'permission_error' },
  conflict: { status: 409, type: 'conflict_error' },
  idempotency_conflict: { status: 409, type: 'idempotency_error' },
  idempotency_mismatch: { status: 422, type: 'idempotency_error' },
  idempotency_completed: { status: 409, type: 'idempotency_error' },
  rule_violation: { status: 422, type: 'business_rule_error' },
  payment_declined: { status: 402, type: 'payment_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  upstream_failure: { status: 502, type: 'api_error' },
  unavailable: { status: 503, type: 'api_error' },
  internal: { status: 500, type: 'api_error' },
};

export function httpOfKind(kind: DomainErrorKind): { status: number; type: string } {
  return KIND_TO_HTTP[kind];
}

/** Headers some refusals must carry beside the body. */
const KIND_HEADERS: Partial<Record<DomainErrorKind, Record<string, string>>> = {
  unauthenticated: { 'WWW-Authenticate': 'Bearer' },
  idempotency_conflict: { 'Retry-After': '1' },
};

/**
 * A rate limit or a server shutting down names when to retry (`details.retry_after_seconds`);
 * the header says it too.
 */
function retryAfter(error: DomainError): Record<string, string> {
  const seconds = error.details?.retry_after_seconds;
  return (error.kind === 'rate_limited' || error.kind === 'unavailable') && typeof seconds === 'number'
    ? { 'Retry-After': String(seconds) }
    : {};
}

/** Errors raised by Fastify or Nest before our code runs, translated to domain terms. */
function frameworkError(error: unknown): DomainError | undefined {
  const code = (error as { code?: unknown }).code;
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return HttpErrors.PAYLOAD_TOO_LARGE.create('The request body exceeds the 1 MB limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType();
    case 'FST_ERR_BAD_URL':
      return HttpErrors.MALFORMED_REQUEST.create('The request path is not valid percent-encoded UTF-8.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return HttpErrors.MALFORMED_REQUEST.create('A path segment is longer than any id (100 characters).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return malformed();
  }
  if (error instanceof SyntaxError && statusCode === 400) return malformed();
  if (error instanceof HttpException) return fromHttpException(error);
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return HttpErrors.MALFORMED_REQUEST.create('The request could not be read.');
  }
  return undefined;
}

export function unsupportedMediaType(): DomainError {
  return HttpErrors.UNSUPPORTED_MEDIA_TYPE.create('Send the request body as application/json.');
}

function malformed(): DomainError {
  return HttpErrors.MALFORMED_REQUEST.create('The request body is not valid JSON.');
}

function fromHttpException(error: HttpException): DomainError {
  switch (error.getStatus()) {
    case 404:
      return HttpErrors.ROUTE_NOT_FOUND.create(error.message.replace(/^Cannot /, 'No route for '));
    case 405:
      return HttpErrors.METHOD_NOT_ALLOWED.create('This method is not allowed on this route.');
    case 413:
      return HttpErrors.PAYLOAD_TOO_LARGE.create('The request body exceeds the 1 MB limit.');
    case 415:
      return unsupportedMediaType();
    default:
      // The one code answered with two kinds: a framework's 5xx is internal, anything else the request's fault.
      return error.getStatus() >= 500
        ? // eslint-disable-next-line no-restricted-syntax
          new DomainError('internal', HttpErrors.MALFORMED_REQUEST.code, error.message)
        : HttpErrors.MALFORMED_REQUEST.create(error.message);
  }
}

/**
 * The one place that turns any thrown value into the contract's error body. Unknown errors
 * become a 500 whose message never reveals internals; the caller logs them.
 */
export function toErrorResponse(error: unknown, requestId: string): ErrorResponse & { unexpected: boolean } {
  const domainError = error instanceof DomainError ? error : frameworkError(error);
  const known =
    domainError ??
    (error instanceof StaleWriteError
      ? // A keyed POST runs again first (IdempotencyInterceptor); this is what is left after that, or a PATCH.
        SharedErrors.CONFLICT.create('The resource changed while this request ran: send it again.')
      : isDatabaseUnavailable(error) || isTransientWriteFailure(error)
        ? // Down, or (after a keyed POST's retries) still deadlocking or waiting on locks: busy, not broken.
          HttpErrors.DATABASE_UNAVAILABLE.create('The database is unavailable: retry shortly.', {
            details: { retry_after_seconds: 1 },
          })
        : SharedErrors.INTERNAL_ERROR.create('An unexpected error occurred. It has been logged.'));
  const { status, type } = KIND_TO_HTTP[known.kind];
  return {
    status,
    unexpected: domainError === undefined,
    headers: { ...KIND_HEADERS[known.kind], ...retryAfter(known) },
    body: {
      error: {
        type,
        code: known.code,
        message: known.message,
        ...(known.param !== undefined && { param: known.param }),
        status,
        request_id: requestId,
        ...(known.details !== undefined && { details: known.details }),
        ...(known.errors !== undefined && { errors: known.errors }),
      },
    },
  };
}
