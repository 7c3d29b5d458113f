import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  Clock,
  derivedWebhookSecret,
  DomainError,
  parseRfc3339,
  PlatformOptions,
  WebhookSignature,
  SharedErrors,
} from '@app/shared-kernel';
import { ProviderReport, VerificationStatus, VerificationType } from '../domain/customer-verification';
import { SandboxChecks } from '../application/verifications/sandbox-checks';
import { VerificationDelivery, VerificationProvider } from '../domain/verification-provider';

/** The sandbox provider's own vocabulary, as a real provider has its own; the adapter maps it to ours. */
export const SANDBOX_STATUSES = {
  processing: 'pending',
  approved: 'verified',
  declined: 'failed',
  expired: 'expired',
  review: 'manual',
  unavailable: 'maintenance',
} as const satisfies Record<string, VerificationStatus>;
export type SandboxStatus = keyof typeof SANDBOX_STATUSES;

const EVENT_TYPE = 'check.updated';
/** Ours → the sandbox's: what it reports for a status a test asks for. */
export function sandboxStatusOf(status: VerificationStatus): SandboxStatus {
  return (Object.keys(SANDBOX_STATUSES) as SandboxStatus[]).find((key) => SANDBOX_STATUSES[key] === status)!;
}

function unsupported(message: string): DomainError {
  return SharedErrors.UNSUPPORTED_EVENT.create(message);
}

/**
 * A verification provider without a network. Its webhooks are `check.updated` events signed with
 * the shared WebhookSignature (`Billing-Signature: t=<unix>,v1=<hex>`, five-minute window) under a
 * secret derived from APP_SECRET for this provider alone:
 *
 *     {"id": "evt_…", "type": "check.updated", "occurred_at": "<RFC 3339>",
 *      "data": {"reference": "vs_sandbox_…", "status": "approved", "expires_at": "<RFC 3339>" | null, …}}
 *
 * Statuses map processing→pending, approved→verified, declined→failed, expired→expired,
 * review→manual, unavailable→maintenance. Asked again about a check during an outage, it answers
 * what a test scripted for that reference, else `approved` (the outage is over).
 */
@Injectable()
export class SandboxVerificationProvider extends VerificationProvider implements SandboxChecks {
  readonly name = 'sandbox';
  private readonly signature: WebhookSignature;
  private readonly scripted = new Map<string, SandboxStatus[]>();

  constructor(
    options: PlatformOptions,
    private readonly clock: Clock,
  ) {
    super();
    this.signature = new WebhookSignature(derivedWebhookSecret(options.appSecret, 'webhooks:verifications:sandbox'), clock);
  }

  async openCheck(): Promise<{ reference: string }> {
    return { reference: `vs_sandbox_${randomBytes(12).toString('hex')}` };
  }

  /** What the sandbox answers on the next retries of `reference`, in order. */
  scriptRetries(reference: string, ...statuses: SandboxStatus[]): void {
    this.scripted.set(reference, [...(this.scripted.get(reference) ?? []), ...statuses]);
  }

  async fetchResult(reference: string): Promise<ProviderReport> {
    const status = this.scripted.get(reference)?.shift() ?? 'approved';
    return this.report(reference, status, null);
  }

  /** A result of the sandbox, as its API and its webhooks word it. */
  report(reference: string, status: SandboxStatus, expiresAt: Date | null, type?: VerificationType): ProviderReport {
    const occurredAt = this.clock.now();
    const payload = JSON.stringify({
      reference,
      status,
      ...(type && { check: type }),
      occurred_at: occurredAt.toISOString(),
      expires_at: expiresAt?.toISOString() ?? null,
      reasons: status === 'declined' ? ['document_unreadable'] : [],
    });
    return { status: SANDBOX_STATUSES[status], occurredAt, expiresAt, payload };
  }

  /** The result of the check in `status` (ours), as the sandbox words it: what the test helper opens it with. */
  reportIn(reference: string, status: VerificationStatus, expiresAt: Date | null, type: VerificationType): ProviderReport {
    return this.report(reference, sandboxStatusOf(status), expiresAt, type);
  }

  /** The sandbox's own outgoing webhook, signed as the endpoint expects it (now, by the clock). */
  signedEvent(event: {
    id: string;
    reference: string;
    status: SandboxStatus;
    occurredAt: Date;
    expiresAt?: Date | null;
    extra?: Record<string, unknown>;
  }): { body: string; signature: string } {
    const body = JSON.stringify({
      id: event.id,
      type: EVENT_TYPE,
      occurred_at: event.occurredAt.toISOString(),
      data: {
        reference: event.reference,
        status: event.status,
        expires_at: event.expiresAt?.toISOString() ?? null,
        ...event.extra,
      },
    });
    return { body, signature: this.signature.sign(body) };
  }

  /** Signs `body` at `timestamp` (unix seconds; now by default). */
  sign(body: string, timestamp?: number): string {
    return this.signature.sign(body, timestamp);
  }

  verifyWebhook(rawBody: string, signatureHeader: string | undefined): VerificationDelivery {
    this.signature.verify(rawBody, signatureHeader);
    let event: unknown;
    try {
      event = JSON.parse(rawBody);
    } catch {
      throw unsupported('The event is not JSON.');
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw unsupported('The event is not an object.');
    const { id, type, occurred_at: occurredAt, data } = event as Record<string, unknown>;
    if (type !== EVENT_TYPE) throw unsupported(`Only ${EVENT_TYPE} events are understood.`);
    if (typeof id !== 'string' || id.length === 0 || id.length > 255) throw unsupported('The event has no id.');
    const occurred = timestamp(occurredAt);
    if (!occurred) throw unsupported('The event has no occurred_at timestamp.');
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw unsupported('The event has no data.');
    const { reference, status, expires_at: expiresAt } = data as Record<string, unknown>;
    if (typeof reference !== 'string' || reference.length === 0 || reference.length > 255)
      throw unsupported('The event names no check reference.');
    if (typeof status !== 'string' || !Object.hasOwn(SANDBOX_STATUSES, status)) throw unsupported('The check status is unknown.');
    const expires = expiresAt === null || expiresAt === undefined ? null : timestamp(expiresAt);
    if (expires === undefined) throw unsupported('expires_at is not a timestamp.');
    return {
      eventId: id,
      eventType: type,
      reference,
      report: { status: SANDBOX_STATUSES[status as SandboxStatus], occurredAt: occurred, expiresAt: expires, payload: rawBody },
    };
  }
}

function timestamp(value: unknown): Date | undefined {
  return typeof value === 'string' ? parseRfc3339(value) : undefined;
}
