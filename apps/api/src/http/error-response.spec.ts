import { BadRequestException, NotFoundException } from '@nestjs/common';
import { DomainError } from '@app/shared-kernel';
import { toErrorResponse } from './error-response';

describe('toErrorResponse', () => {
  it.each([
    ['invalid_request', 400, 'invalid_request_error'],
    ['not_found', 404, 'invalid_request_error'],
    ['unauthenticated', 401, 'authentication_error'],
    ['forbidden', 403, 'permission_error'],
    ['conflict', 409, 'conflict_error'],
    ['idempotency_conflict', 409, 'idempotency_error'],
    ['idempotency_mismatch', 422, 'idempotency_error'],
    ['rule_violation', 422, 'business_rule_error'],
    ['payment_declined', 402, 'payment_error'],
    ['rate_limited', 429, 'rate_limit_error'],
    ['upstream_failure', 502, 'api_error'],
  ] as const)('maps kind %s to %i %s', (kind, status, type) => {
    const response = toErrorResponse(new DomainError(kind, 'SOME_CODE', 'text', { param: 'p', details: { a: 1 } }), 'req_1');
    expect(response.status).toBe(status);
    expect(response.unexpected).toBe(false);
    expect(response.body).toEqual({
      error: { type, code: 'SOME_CODE', message: 'text', param: 'p', status, request_id: 'req_1', details: { a: 1 } },
    });
  });

  it('adds WWW-Authenticate to 401s and Retry-After to in-flight idempotency conflicts', () => {
    expect(toErrorResponse(new DomainError('unauthenticated', 'UNAUTHENTICATED', 'x'), 'r').headers).toEqual({
      'WWW-Authenticate': 'Bearer',
    });
    expect(toErrorResponse(new DomainError('idempotency_conflict', 'IDEMPOTENCY_KEY_IN_USE', 'x'), 'r').headers).toEqual({
      'Retry-After': '1',
    });
  });

  it('hides unexpected errors behind a generic 500', () => {
    const response = toErrorResponse(new TypeError('cannot read properties of undefined (reading "secret")'), 'req_2');
    expect(response.unexpected).toBe(true);
    expect(response.status).toBe(500);
    expect(response.body.error).toEqual({
      type: 'api_error',
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred. It has been logged.',
      status: 500,
      request_id: 'req_2',
    });
  });

  it('answers a database outage with a retryable 503 DATABASE_UNAVAILABLE (still logged), not a 500', () => {
    const lost = new Error('Connection terminated unexpectedly');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      driverError: { code: '57P01' },
    });
    for (const error of [lost, refused, shutdown]) {
      const response = toErrorResponse(error, 'req_3');
      expect({
        message: error.message,
        status: response.status,
        headers: response.headers,
        unexpected: response.unexpected,
      }).toEqual({
        message: error.message,
        status: 503,
        headers: { 'Retry-After': '1' },
        unexpected: true,
      });
      expect(response.body.error).toMatchObject({
        type: 'api_error',
        code: 'DATABASE_UNAVAILABLE',
        details: { retry_after_seconds: 1 },
      });
    }
    // A refused write is the request's fault or a bug, never an outage.
    expect(toErrorResponse(Object.assign(new Error('duplicate key'), { code: '23505' }), 'r').status).toBe(500);
  });

  it('translates framework errors', () => {
    expect(toErrorResponse(new NotFoundException('Cannot GET /v1/x'), 'r').body.error).toEqual(
      expect.objectContaining({ code: 'ROUTE_NOT_FOUND', message: 'No route for GET /v1/x', status: 404 }),
    );
    expect(
      toErrorResponse(Object.assign(new Error('too big'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }), 'r').status,
    ).toBe(413);
    expect(toErrorResponse(new BadRequestException('Body cannot be empty'), 'r').body.error.code).toBe('MALFORMED_REQUEST');
  });
});
