import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Bearer secrets: a kind prefix, 256 random bits in base62, and a CRC32 checksum in base62.
 * The checksum lets a mistyped or truncated token be refused without a database read, and
 * lets secret scanners recognise a real token (as GitHub's tokens do).
 */
export type TokenKind = 'sk_live' | 'sk_test' | 'sess';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43; // 62^43 > 2^256
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
const TOKEN_PATTERN = /^(sk_live|sk_test|sess)_([0-9A-Za-z]{49})$/;

function base62(value: bigint, length: number): string {
  let text = '';
  for (let rest = value; rest > 0n; rest /= 62n) text = ALPHABET[Number(rest % 62n)] + text;
  return text.padStart(length, '0');
}

function checksum(prefixAndBody: string): string {
  return base62(BigInt(crc32(prefixAndBody)), CHECKSUM_LENGTH);
}

export function generateToken(kind: TokenKind): string {
  const body = base62(BigInt(`0x${randomBytes(32).toString('hex')}`), BODY_LENGTH);
  const prefixAndBody = `${kind}_${body}`;
  return `${prefixAndBody}${checksum(prefixAndBody)}`;
}

/** The kind of a well-formed token with a valid checksum, else undefined. */
export function verifyTokenShape(token: string): TokenKind | undefined {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return undefined;
  const prefixAndBody = token.slice(0, token.length - CHECKSUM_LENGTH);
  return checksum(prefixAndBody) === token.slice(-CHECKSUM_LENGTH) ? (match[1] as TokenKind) : undefined;
}

/**
 * SHA-256 is enough for 256-bit random secrets: there is nothing to brute-force. One-shot
 * (crypto.hash): every authenticated request hashes its token, and a Hash object costs more than the digest.
 */
export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export const DISPLAY_PREFIX_LENGTH = 12;

export function displayPrefix(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}
