import { DomainError } from '@app/shared-kernel';
import { addCadence, Subscription } from './subscription';

const start = (iso: string) => new Date(iso);

describe('addCadence: periods on the UTC calendar, month ends clamped as PostgreSQL does', () => {
  it.each([
    ['2026-01-31T09:30:00.000Z', 'month', 1, '2026-02-28T09:30:00.000Z'],
    ['2026-01-31T09:30:00.000Z', 'month', 2, '2026-03-31T09:30:00.000Z'],
    ['2028-01-31T00:00:00.000Z', 'month', 1, '2028-02-29T00:00:00.000Z'],
    ['2026-12-15T00:00:00.000Z', 'month', 1, '2027-01-15T00:00:00.000Z'],
    ['2026-11-25T10:00:00.000Z', 'month', 14, '2028-01-25T10:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'year', 1, '2029-02-28T00:00:00.000Z'],
    ['2026-03-28T23:00:00.000Z', 'week', 1, '2026-04-04T23:00:00.000Z'],
  ] as const)('%s + %i %s', (from, cadence, count, expected) => {
    expect(addCadence(start(from), cadence, count).toISOString()).toBe(expected);
  });
});

describe('Subscription', () => {
  const subscription = () =>
    Subscription.start({
      organizationId: 'o',
      workspaceId: 'w',
      customerId: 'c',
      planId: 'p',
      planVersionId: 'v',
      billingCadence: 'month',
      planTrackMode: 'latest',
      versionChangeStrategy: 'next_period',
      productPins: [],
      currentPeriodStart: start('2026-01-31T00:00:00Z'),
      now: start('2026-01-30T00:00:00Z'),
    });

  it('starts active for one period and tracks latest without pins', () => {
    const s = subscription();
    expect(s.snapshot).toMatchObject({ status: 'active', currentPeriodEnd: start('2026-02-28T00:00:00Z'), canceledAt: null });
    expect(s.holdsPin).toBe(false);
  });

  it('cancels once; canceled is terminal', () => {
    const s = subscription();
    s.cancel(start('2026-02-01T00:00:00Z'));
    expect(s.snapshot).toMatchObject({ status: 'canceled', canceledAt: start('2026-02-01T00:00:00Z') });
    expect(() => s.cancel(start('2026-02-02T00:00:00Z'))).toThrow(
      expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION' }) as DomainError,
    );
  });
});
