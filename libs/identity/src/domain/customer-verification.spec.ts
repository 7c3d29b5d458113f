import { DomainError } from '@app/shared-kernel';
import {
  ADMIN_TRANSITIONS,
  CustomerVerification,
  PROVIDER_TRANSITIONS,
  ProviderReport,
  RETRY_DELAYS_MINUTES,
  VERIFICATION_STATUSES,
  VerificationStatus,
} from './customer-verification';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const MINUTE = 60_000;
const at = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE);

function report(status: VerificationStatus, occurredAt: Date, expiresAt: Date | null = null): ProviderReport {
  return { status, occurredAt, expiresAt, payload: JSON.stringify({ status, at: occurredAt.toISOString() }) };
}

function opened(status: VerificationStatus, expiresAt: Date | null = null): CustomerVerification {
  return CustomerVerification.open(
    {
      organizationId: 'org',
      workspaceId: 'ws',
      customerId: 'customer',
      verificationType: 'kyc',
      provider: 'sandbox',
      providerReference: 'vs_1',
      report: report(status, T0, expiresAt),
    },
    'test_helper',
    T0,
  ).verification;
}

function refusal(action: () => unknown): { code: string; details?: unknown } | undefined {
  try {
    action();
  } catch (error) {
    return { code: (error as DomainError).code, details: (error as DomainError).details };
  }
  return undefined;
}

describe('CustomerVerification', () => {
  describe('admin override: every pair of statuses against the contract’s table', () => {
    const pairs = VERIFICATION_STATUSES.flatMap((from) => VERIFICATION_STATUSES.map((to) => [from, to] as const));

    it.each(pairs)('%s → %s', (from, to) => {
      const verification = opened(from, from === 'verified' ? at(60 * 24) : null);
      const before = { ...verification.snapshot };
      if (from === to) {
        expect(verification.overrideStatus(to, at(1))).toBeNull();
        expect(verification.snapshot).toEqual(before);
      } else if (ADMIN_TRANSITIONS[from].includes(to)) {
        expect(verification.overrideStatus(to, at(1))).toEqual({ from, to, source: 'admin', at: at(1) });
        expect(verification.snapshot.status).toBe(to);
        expect(verification.snapshot.updatedAt).toEqual(at(1));
        expect(verification.snapshot.completedAt).toEqual(['verified', 'failed', 'expired'].includes(to) ? at(1) : null);
      } else {
        expect(refusal(() => verification.overrideStatus(to, at(1)))).toEqual({
          code: 'INVALID_STATUS_TRANSITION',
          details: { from, to, allowed: [...ADMIN_TRANSITIONS[from]] },
        });
        expect(verification.snapshot).toEqual(before);
      }
    });
  });

  describe('provider results', () => {
    it.each(VERIFICATION_STATUSES.flatMap((from) => VERIFICATION_STATUSES.map((to) => [from, to] as const)))(
      'a newer result %s → %s applies exactly where the lifecycle allows',
      (from, to) => {
        const verification = opened(from, from === 'verified' ? at(60 * 24) : null);
        const { applied, change } = verification.recordProviderResult(report(to, at(1)), 'provider', at(2));
        const allowed = from === to || PROVIDER_TRANSITIONS[from].includes(to);
        expect({ applied, status: verification.snapshot.status }).toEqual({ applied: allowed, status: allowed ? to : from });
        expect(change).toEqual(allowed && from !== to ? { from, to, source: 'provider', at: at(2) } : null);
      },
    );

    it('never applies a result that happened before the last one applied (out of order), nor one at the same instant', () => {
      const verification = opened('pending');
      expect(verification.recordProviderResult(report('pending', at(10)), 'provider', at(11)).applied).toBe(true);
      expect(verification.recordProviderResult(report('verified', at(5)), 'provider', at(12))).toEqual({
        applied: false,
        change: null,
      });
      expect(verification.recordProviderResult(report('verified', at(10)), 'provider', at(12)).applied).toBe(false);
      expect(verification.snapshot.status).toBe('pending');
      expect(verification.recordProviderResult(report('failed', at(10.5)), 'provider', at(12)).change?.to).toBe('failed');
    });

    it('ignores results that happened before an admin’s override', () => {
      const verification = opened('pending');
      verification.overrideStatus('manual', at(10));
      verification.overrideStatus('pending', at(11));
      expect(verification.recordProviderResult(report('verified', at(9)), 'provider', at(12)).applied).toBe(false);
      expect(verification.recordProviderResult(report('verified', at(12)), 'provider', at(12)).change?.to).toBe('verified');
    });

    it('keeps the raw payload and the validity of the result applied; a verified result already past its validity is expired', () => {
      const verification = opened('pending');
      const result = report('verified', at(1), at(60));
      verification.recordProviderResult(result, 'provider', at(2));
      expect(verification.snapshot).toEqual(
        expect.objectContaining({ status: 'verified', providerResult: result.payload, expiresAt: at(60), completedAt: at(2) }),
      );
      const late = opened('pending');
      expect(late.recordProviderResult(report('verified', at(1), at(1.5)), 'provider', at(2)).change?.to).toBe('expired');
    });
  });

  describe('time', () => {
    it('expires a verified check from expires_at on, and nothing else', () => {
      const verification = opened('verified', at(60));
      expect(verification.expire(at(59.99))).toBeNull();
      expect(verification.expire(at(60))).toEqual({ from: 'verified', to: 'expired', source: 'expiry', at: at(60) });
      expect(verification.expire(at(61))).toBeNull();
      for (const status of VERIFICATION_STATUSES.filter((status) => status !== 'verified')) {
        expect(opened(status).expire(at(1000))).toBeNull();
      }
    });

    it('schedules retries of an outage 5, 10, 20, 40 and 60 minutes apart, then none', () => {
      const verification = opened('maintenance');
      let now = T0;
      const delays: number[] = [];
      while (verification.snapshot.nextRetryAt) {
        const next = verification.snapshot.nextRetryAt;
        delays.push((next.getTime() - now.getTime()) / MINUTE);
        expect(verification.retryDue(new Date(next.getTime() - 1))).toBe(false);
        expect(verification.retryDue(next)).toBe(true);
        now = next;
        verification.noteStillUnavailable(now);
      }
      expect(delays).toEqual([...RETRY_DELAYS_MINUTES]);
      expect(verification.snapshot).toEqual(expect.objectContaining({ status: 'maintenance', retryCount: 5, nextRetryAt: null }));
    });

    it('stops retrying once the outage ends, and starts afresh at the next one', () => {
      const verification = opened('maintenance');
      verification.noteStillUnavailable(at(5));
      verification.recordProviderResult(report('pending', at(15)), 'retry', at(15));
      expect(verification.snapshot).toEqual(expect.objectContaining({ status: 'pending', retryCount: 0, nextRetryAt: null }));
      verification.recordProviderResult(report('maintenance', at(16)), 'provider', at(16));
      expect(verification.snapshot).toEqual(expect.objectContaining({ retryCount: 0, nextRetryAt: at(21) }));
    });
  });
});
