import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TestApp } from './test-app';
import { createKey, idem, TestTenant } from './tenants';

/** The error `type` the contract pairs with each status. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  409: 'conflict_error',
  422: 'business_rule_error',
  429: 'rate_limit_error',
};

/** Asserts status, code and type together, so a failure shows all three at once. */
export function expectError(response: Response, status: number, code: string): any {
  expect(`${response.status} ${response.body?.error?.code}`).toBe(`${status} ${code}`);
  expect(response.body.error).toEqual(
    expect.objectContaining({
      status,
      code,
      type: status !== 400 && code.startsWith('IDEMPOTENCY_') ? 'idempotency_error' : ERROR_TYPES[status],
      message: expect.any(String),
      request_id: expect.any(String),
    }),
  );
  expect(response.body.error.request_id).toBe(response.headers['request-id']);
  if (status === 401) expect(response.headers['www-authenticate']).toBe('Bearer');
  return response.body.error;
}

/** A 400 VALIDATION_ERROR naming `param` with the field error `code`. */
export function expectFieldError(response: Response, param: string, code: string): void {
  const error = expectError(response, 400, 'VALIDATION_ERROR');
  expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param, code })]));
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(value: bigint, length: number): string {
  let text = '';
  for (let rest = value; rest > 0n; rest /= 62n) text = ALPHABET[Number(rest % 62n)] + text;
  return text.padStart(length, '0');
}

/**
 * A token of the documented shape (kind, 43 base62 characters, CRC32 checksum in 6 base62
 * characters) that was never issued: well-formed, so the server must look it up and refuse it.
 */
export function forgeToken(kind: 'sk_live' | 'sk_test' | 'sess'): string {
  const body = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), 43);
  const prefixAndBody = `${kind}_${body}`;
  return `${prefixAndBody}${base62(BigInt(crc32(prefixAndBody)), 6)}`;
}

/** The same token with one character of its random body changed: the checksum no longer matches. */
export function typo(token: string, position = 12): string {
  const original = token[position];
  const replacement = original === 'a' ? 'b' : 'a';
  return `${token.slice(0, position)}${replacement}${token.slice(position + 1)}`;
}

/**
 * A key that holds no scope at all. The API refuses to mint one (`scopes: []` is a 400), so a
 * freshly minted key is emptied in the database before its first use (nothing is cached yet).
 */
export async function createScopelessKey(t: TestApp, tenant: TestTenant): Promise<{ id: string; secret: string }> {
  const key = await createKey(t, tenant.auth, { name: 'no scopes', scopes: ['costs:read'] });
  await t.app.get(DataSource).query(`UPDATE api_keys SET scopes = '{}' WHERE id = $1`, [key.id]);
  return { id: key.id, secret: key.secret };
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Creates a customer (workspace-scoped) and returns the response: shows which workspace a request resolved to. */
export function postCustomer(t: TestApp, auth: string, headers: Record<string, string> = {}) {
  return t.http
    .post('/v1/customers')
    .set('Authorization', auth)
    .set('Idempotency-Key', idem())
    .set(headers)
    .send({ name: 'Probe customer', currency: 'EUR' });
}

/** A copy of `object` without the named fields. */
export function without(object: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([field]) => !fields.includes(field)));
}
