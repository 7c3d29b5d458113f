import { IntegrationEvent, newId, SharedErrors } from '@app/shared-kernel';

export const VERIFICATION_STATUSES = ['pending', 'verified', 'expired', 'failed', 'manual', 'maintenance'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const VERIFICATION_TYPES = ['kyc', 'kyb', 'age', 'business_entity', 'vat'] as const;
export type VerificationType = (typeof VERIFICATION_TYPES)[number];

/** The statuses that close a check: the record then carries `completed_at`. */
const COMPLETED: ReadonlySet<VerificationStatus> = new Set(['verified', 'failed', 'expired']);

/**
 * Where an admin may move a verification (the API contract's table). The same status is not a
 * transition: it answers 200 and changes nothing.
 */
export const ADMIN_TRANSITIONS: Readonly<Record<VerificationStatus, readonly VerificationStatus[]>> = {
  pending: ['verified', 'expired', 'failed', 'manual', 'maintenance'],
  verified: ['expired', 'manual', 'pending'],
  failed: ['pending', 'manual'],
  expired: ['pending', 'manual'],
  manual: ['verified', 'failed', 'pending'],
  maintenance: ['pending', 'verified', 'failed', 'manual'],
};

/**
 * Where a provider's result may move a verification (the lifecycle): a pending check, or one
 * waiting out a provider outage, takes whatever the provider reports; a verified one can only
 * lapse. Failed, expired and manual records are settled (manual: a human took the case over);
 * a provider's later word on them is kept with its delivery but changes nothing.
 */
export const PROVIDER_TRANSITIONS: Readonly<Record<VerificationStatus, readonly VerificationStatus[]>> = {
  pending: ['verified', 'expired', 'failed', 'manual', 'maintenance'],
  maintenance: ['pending', 'verified', 'expired', 'failed', 'manual'],
  verified: ['expired'],
  failed: [],
  expired: [],
  manual: [],
};

/** Minutes between a provider outage (`maintenance`) and each retry; after the last, an admin decides. */
export const RETRY_DELAYS_MINUTES = [5, 10, 20, 40, 60] as const;
const MINUTE_MS = 60_000;

export function isVerificationStatus(value: unknown): value is VerificationStatus {
  return typeof value === 'string' && (VERIFICATION_STATUSES as readonly string[]).includes(value);
}

export function isVerificationType(value: unknown): value is VerificationType {
  return typeof value === 'string' && (VERIFICATION_TYPES as readonly string[]).includes(value);
}

export interface VerificationState {
  organizationId: string;
  workspaceId: string;
  id: string;
  customerId: string;
  verificationType: VerificationType;
  status: VerificationStatus;
  provider: string;
  providerReference: string;
  /** The provider's last applied result, as the raw JSON text it sent. */
  providerResult: string | null;
  /** When the last fact applied happened (a provider's event time, or an admin's override): older ones never apply. */
  lastEventAt: Date | null;
  retryCount: number;
  nextRetryAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  expiresAt: Date | null;
}

/** What a provider reported about one check, its signature or origin already verified. */
export interface ProviderReport {
  status: VerificationStatus;
  /** When the provider says this happened: what orders deliveries. */
  occurredAt: Date;
  expiresAt: Date | null;
  /** The raw JSON text the provider sent. */
  payload: string;
}

export type ChangeSource = 'admin' | 'provider' | 'expiry' | 'retry' | 'test_helper';

export interface StatusChange {
  from: VerificationStatus | null;
  to: VerificationStatus;
  source: ChangeSource;
  at: Date;
}

/**
 * An identity or compliance check of a customer by an external provider. Its status moves by
 * the provider's results (in the order they happened, never backwards), by time (a verified
 * check lapses at `expires_at`; a provider outage is retried with backoff) and by an admin's
 * override, each within its own transition table.
 */
export class CustomerVerification {
  private constructor(private state: VerificationState) {}

  static restore(state: VerificationState): CustomerVerification {
    return new CustomerVerification(state);
  }

  /** A check as its provider opened it; the sandbox may open it in any status. */
  static open(
    fields: {
      organizationId: string;
      workspaceId: string;
      customerId: string;
      verificationType: VerificationType;
      provider: string;
      providerReference: string;
      report: ProviderReport;
    },
    source: ChangeSource,
    now: Date,
  ): { verification: CustomerVerification; change: StatusChange } {
    const verification = new CustomerVerification({
      organizationId: fields.organizationId,
      workspaceId: fields.workspaceId,
      id: newId(),
      customerId: fields.customerId,
      verificationType: fields.verificationType,
      status: 'pending',
      provider: fields.provider,
      providerReference: fields.providerReference,
      providerResult: fields.report.payload,
      lastEventAt: fields.report.occurredAt,
      retryCount: 0,
      nextRetryAt: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      expiresAt: fields.report.expiresAt,
    });
    verification.moveTo(verification.effectiveStatus(fields.report, now), now);
    return { verification, change: { from: null, to: verification.state.status, source, at: now } };
  }

  get snapshot(): Readonly<VerificationState> {
    return this.state;
  }

  /** An admin sets the status: only a permitted transition; the same status changes nothing (null). */
  overrideStatus(to: VerificationStatus, now: Date): StatusChange | null {
    const from = this.state.status;
    if (to === from) return null;
    if (!ADMIN_TRANSITIONS[from].includes(to)) {
      throw SharedErrors.INVALID_STATUS_TRANSITION.create(`A ${from} verification cannot be set to ${to}.`, {
        param: 'status',
        details: { from, to, allowed: [...ADMIN_TRANSITIONS[from]] },
      });
    }
    // An admin verifying by hand is not bound by a validity that already ran out.
    if (to === 'verified' && this.state.expiresAt && this.state.expiresAt <= now) this.state.expiresAt = null;
    this.state.lastEventAt = maxDate(this.state.lastEventAt, now);
    this.moveTo(to, now);
    return { from, to, source: 'admin', at: now };
  }

  /**
   * A provider's result. Applied only when it happened after the last fact applied (an older
   * delivery arriving late never moves the record back) and the lifecycle lets it through;
   * `applied` says whether it was taken (its payload and expiry kept), `change` whether the
   * status moved.
   */
  recordProviderResult(
    report: ProviderReport,
    source: 'provider' | 'retry',
    now: Date,
  ): { applied: boolean; change: StatusChange | null } {
    if (this.state.lastEventAt && report.occurredAt <= this.state.lastEventAt) return { applied: false, change: null };
    const from = this.state.status;
    const to = this.effectiveStatus(report, now);
    if (to !== from && !PROVIDER_TRANSITIONS[from].includes(to)) return { applied: false, change: null };
    this.state.providerResult = report.payload;
    this.state.lastEventAt = report.occurredAt;
    // The provider's latest word on the check's validity replaces the earlier one.
    this.state.expiresAt = report.expiresAt;
    if (to === from) {
      this.state.updatedAt = now;
      return { applied: true, change: null };
    }
    this.moveTo(to, now);
    return { applied: true, change: { from, to, source, at: now } };
  }

  /** The provider was asked again during an outage and is still unavailable: the next retry, or none after the last. */
  noteStillUnavailable(now: Date): void {
    if (this.state.status !== 'maintenance') return;
    this.state.retryCount += 1;
    const delay = RETRY_DELAYS_MINUTES[this.state.retryCount];
    this.state.nextRetryAt = delay === undefined ? null : new Date(now.getTime() + delay * MINUTE_MS);
    this.state.updatedAt = now;
  }

  /** Whether a retry is due now (an outage, its next retry reached). */
  retryDue(now: Date): boolean {
    return this.state.status === 'maintenance' && this.state.nextRetryAt !== null && this.state.nextRetryAt <= now;
  }

  /** A verified check lapses at `expires_at`; before it, or in any other status, nothing happens (null). */
  expire(now: Date): StatusChange | null {
    if (this.state.status !== 'verified' || !this.state.expiresAt || this.state.expiresAt > now) return null;
    this.state.lastEventAt = maxDate(this.state.lastEventAt, this.state.expiresAt);
    this.moveTo('expired', now);
    return { from: 'verified', to: 'expired', source: 'expiry', at: now };
  }

  /** A verified result whose validity already ended is an expired one. */
  private effectiveStatus(report: ProviderReport, now: Date): VerificationStatus {
    return report.status === 'verified' && report.expiresAt && report.expiresAt <= now ? 'expired' : report.status;
  }

  private moveTo(to: VerificationStatus, now: Date): void {
    const from = this.state.status;
    this.state.status = to;
    this.state.updatedAt = now;
    this.state.completedAt = COMPLETED.has(to) ? now : null;
    if (to === 'maintenance' && (from !== 'maintenance' || this.state.nextRetryAt === null)) {
      this.state.retryCount = 0;
      this.state.nextRetryAt = new Date(now.getTime() + RETRY_DELAYS_MINUTES[0] * MINUTE_MS);
    } else if (to !== 'maintenance') {
      this.state.retryCount = 0;
      this.state.nextRetryAt = null;
    }
  }
}

function maxDate(a: Date | null, b: Date): Date {
  return a && a > b ? a : b;
}

/** Every status a verification takes, with what moved it; relayed to subscribers after commit. */
@IntegrationEvent('customer_verification.updated')
export class CustomerVerificationUpdated {
  constructor(
    readonly organizationId: string,
    readonly workspaceId: string,
    readonly verificationId: string,
    readonly customerId: string,
    readonly verificationType: VerificationType,
    readonly previousStatus: VerificationStatus | null,
    readonly status: VerificationStatus,
    readonly source: ChangeSource,
    readonly occurredAt: string,
  ) {}
}
