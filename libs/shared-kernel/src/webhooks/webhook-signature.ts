import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Clock } from '../clock';
import { DomainError } from '../domain-error';
import { SharedErrors } from '../shared-kernel-errors';

/** The header every provider webhook of this API carries its signature in. */
export const WEBHOOK_SIGNATURE_HEADER = 'billing-signature';

/** How far a signature's timestamp may be from now, either way: older deliveries are replays. */
export const WEBHOOK_REPLAY_WINDOW_SECONDS = 5 * 60;

/**
 * A provider's webhook secret derived from the application secret, one per purpose (for example
 * `webhooks:sandbox` for the sandbox payment provider): a secret leaked for one provider signs
 * nothing for another. A real provider's secret comes from its own configuration instead.
 */
export function derivedWebhookSecret(appSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', appSecret, 'billing-api', purpose, 32));
}

export function invalidSignature(): DomainError {
  return SharedErrors.INVALID_SIGNATURE.create('The webhook signature is missing, wrong or too old.');
}

/**
 * The one HMAC webhook signature of the API, as Stripe signs them: `t=<unix seconds>,v1=<hex>`
 * where the hex is HMAC-SHA256 over `<t>.<raw body>`. Several `v1=` entries may be sent (a
 * provider rolling its secret signs with both); one matching is enough. The timestamp must be
 * within the replay window of now, by the injected clock. Compared in constant time.
 */
export class WebhookSignature {
  readonly #secret: Buffer;

  constructor(
    secret: Buffer,
    private readonly clock: Clock,
    private readonly windowSeconds = WEBHOOK_REPLAY_WINDOW_SECONDS,
  ) {
    if (secret.length < 16) throw new Error('A webhook secret needs at least 16 bytes.');
    this.#secret = secret;
  }

  /** The header value for `body`, signed at `timestamp` (unix seconds; now by default). */
  sign(body: string, timestamp = Math.floor(this.clock.now().getTime() / 1000)): string {
    return `t=${timestamp},v1=${this.digest(body, timestamp)}`;
  }

  /** Throws 401 INVALID_SIGNATURE unless one `v1` signs the exact bytes at a timestamp inside the window. */
  verify(rawBody: string, header: string | undefined): void {
    let timestamp: number | undefined;
    const given: string[] = [];
    for (const part of (header ?? '').split(',')) {
      const separator = part.indexOf('=');
      if (separator < 0) continue;
      const [name, value] = [part.slice(0, separator).trim(), part.slice(separator + 1).trim()];
      if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
      else if (name === 'v1') given.push(value);
    }
    if (timestamp === undefined || given.length === 0) throw invalidSignature();
    const age = Math.abs(this.clock.now().getTime() / 1000 - timestamp);
    if (!(age <= this.windowSeconds)) throw invalidSignature();
    const expected = Buffer.from(this.digest(rawBody, timestamp), 'utf8');
    const matches = given.some((signature) => {
      const candidate = Buffer.from(signature, 'utf8');
      return candidate.length === expected.length && timingSafeEqual(candidate, expected);
    });
    if (!matches) throw invalidSignature();
  }

  private digest(body: string, timestamp: number): string {
    return createHmac('sha256', this.#secret).update(`${timestamp}.${body}`).digest('hex');
  }
}
