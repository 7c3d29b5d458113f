import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { DomainError } from './domain-error';
import { SharedErrors } from './shared-kernel-errors';

/** What a cursor was issued for; filters are compared canonically (key order is irrelevant). */
export interface CursorBinding {
  list: string;
  filters: Record<string, unknown>;
  order: string;
}

const VERSION = 'v1';
// 128 bits of HMAC-SHA256 keep cursors short and are far beyond guessing range.
const SIGNATURE_BYTES = 16;

/**
 * Opaque, signed pagination cursors: `v1.<position as JSON, base64url>.<HMAC, base64url>`.
 * The binding is not carried in the cursor but signed together with the position, so a
 * cursor replayed on another list, filter set or order fails verification exactly as a
 * tampered one does. Cursors never expire.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(secret: string | Buffer) {
    if (secret.length === 0) {
      throw new Error('CursorCodec needs a non-empty secret.');
    }
    // The application secret signs other things too: a derived key keeps cursors to themselves.
    this.#key = createHmac('sha256', secret).update('pagination-cursor').digest();
  }

  encode(binding: CursorBinding, position: unknown[]): string {
    const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${VERSION}.${payload}.${this.sign(payload, binding)}`;
  }

  /** The position given to encode, or INVALID_CURSOR, whatever is wrong with the cursor. */
  decode(cursor: unknown, binding: CursorBinding): unknown[] {
    const parts = typeof cursor === 'string' ? cursor.split('.') : [];
    if (parts.length !== 3 || parts[0] !== VERSION) {
      throw invalidCursor();
    }
    const [, payload, signature] = parts;
    // Comparing the base64url text, not decoded bytes, also refuses non-canonical encodings.
    const expected = Buffer.from(this.sign(payload, binding));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidCursor();
    }
    let position: unknown;
    try {
      position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    if (!Array.isArray(position)) {
      throw invalidCursor();
    }
    return position;
  }

  private sign(payload: string, binding: CursorBinding): string {
    const boundTo = canonicalJson({ list: binding.list, filters: binding.filters, order: binding.order });
    return createHmac('sha256', this.#key)
      .update(`${VERSION}.${payload}.${boundTo}`)
      .digest()
      .subarray(0, SIGNATURE_BYTES)
      .toString('base64url');
  }
}

function invalidCursor(): DomainError {
  return SharedErrors.INVALID_CURSOR.create('The cursor is invalid or was issued for another list, filter set or order.', {
    param: 'cursor',
  });
}
