import request from 'supertest';

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The contract's error body: status, type and code asserted, request id echoed. */
export function expectError(response: request.Response, status: number, type: string, code: string): void {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({
    error: expect.objectContaining({
      type,
      code,
      status,
      request_id: response.headers['request-id'],
      message: expect.any(String),
    }),
  });
}
