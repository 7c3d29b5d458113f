import { createHmac, createSecretKey, hkdfSync, KeyObject } from 'node:crypto';

/**
 * A request's fingerprint: HMAC-SHA256 of its canonical text under a key derived from
 * APP_SECRET, not a bare SHA-256. A body may carry a password (`POST /v1/users`): an unkeyed
 * digest of it, kept for a day beside the request's visible fields (e-mail, role), would let
 * whoever reads the table test password guesses at hash speed, past the memory-hard password hash.
 */
export class RequestFingerprint {
  /** A KeyObject made once: a raw Buffer key is converted into one on every HMAC. */
  private readonly key: KeyObject;

  constructor(appSecret: string) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', appSecret, 'billing-api', 'idempotency-fingerprints', 32)));
  }

  of(canonical: string): string {
    return createHmac('sha256', this.key).update(canonical).digest('hex');
  }
}
