import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, KeyObject } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { RandomPool } from '../random-pool';

/** Stored bodies are a few hundred bytes: a small window and fast level cost half the time of the defaults for the same size. */
const SMALL_BODY_DEFLATE = { level: 1, memLevel: 4, windowBits: 10 };

/** The IVs: 96 random bits each, as before, from a pool rather than a call into the CSPRNG per response. */
const ivs = new RandomPool();

/**
 * Stored responses are encrypted (AES-256-GCM, key derived from APP_SECRET): some carry a
 * secret shown once (a new API key), and no secret may rest in the database in plaintext.
 * Other secrets kept at rest (webhook endpoints' signing secrets) use the same vault under a
 * purpose of their own, so each purpose has its own key.
 */
export class ResponseVault {
  /** A KeyObject made once: a raw Buffer key is converted into one on every cipher. */
  private readonly key: KeyObject;

  constructor(appSecret: string, purpose = 'idempotency-responses') {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', appSecret, 'billing-api', purpose, 32)));
  }

  seal(plaintext: string): string {
    const iv = ivs.bytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    // Compressed before encryption (ciphertext does not compress): stored replays stay small.
    const sealed = Buffer.concat([cipher.update(deflateRawSync(plaintext, SMALL_BODY_DEFLATE)), cipher.final()]);
    return ['v2', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
  }

  open(stored: string): string {
    const [version, iv, tag, sealed] = stored.split(':');
    if (version !== 'v2') throw new Error('Unknown stored response format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return inflateRawSync(Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()])).toString('utf8');
  }
}
