import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';
import { ConcurrencyGate, invalidParameter } from '@app/shared-kernel';

/** scrypt (memory-hard): N=2^15, r=8, p=1 uses 32 MiB per hash, about 50–100 ms here. */
const PARAMETERS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const MIN_LENGTH = 12;
const MAX_LENGTH = 256;

/**
 * scrypt runs in libuv's pool (4 threads, shared with DNS and file reads): two at a time per
 * process and a short queue, past which sign-in answers 429 at once. However many accounts and
 * addresses a flood spreads over, password checks cost at most two threads.
 */
const SCRYPT_GATE = new ConcurrencyGate(2, 8, 'Too many password checks in progress; retry in a second.');

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return SCRYPT_GATE.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password, salt, KEY_LENGTH, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
  );
}

export function assertAcceptablePassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length < MIN_LENGTH || password.length > MAX_LENGTH) {
    throw invalidParameter('password', 'OUT_OF_RANGE', `password must be ${MIN_LENGTH} to ${MAX_LENGTH} characters.`);
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMETERS);
  return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Verifying against this keeps an unknown email as slow as a wrong password. */
export const UNUSABLE_PASSWORD_HASH = `scrypt$${PARAMETERS.N}$${PARAMETERS.r}$${PARAMETERS.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;
