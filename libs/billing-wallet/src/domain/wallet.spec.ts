import fc from 'fast-check';
import { DomainError, Money } from '@app/shared-kernel';
import { LedgerEntry, replayOf, Wallet } from './wallet';

const usd = (amount: string) => Money.of(amount, 'USD');
const by = { type: 'api_key', id: '00000000-0000-7000-8000-000000000001' };
const t0 = new Date('2026-11-22T12:00:00Z');
const at = (hours: number) => new Date(t0.getTime() + hours * 3_600_000);

function openWallet(limits: { creditLimit?: string; maxBalance?: string; maxSingleCredit?: string } = {}): Wallet {
  return Wallet.open({
    organizationId: 'o',
    workspaceId: 'w',
    customerId: 'c',
    currency: 'USD',
    isPrimary: true,
    limits: {
      creditLimit: limits.creditLimit ? usd(limits.creditLimit) : undefined,
      maxBalance: limits.maxBalance ? usd(limits.maxBalance) : undefined,
      maxSingleCredit: limits.maxSingleCredit ? usd(limits.maxSingleCredit) : undefined,
    },
    now: t0,
  });
}

function code(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return (error as DomainError).code;
  }
  return undefined;
}

describe('Wallet', () => {
  it('credits cash and records the running balances', () => {
    const wallet = openWallet();
    const entry = wallet.credit({ amount: usd('10.50'), source: 'PAYMENT', createdBy: by, now: t0 });
    expect(entry).toEqual(expect.objectContaining({ type: 'credit', source: 'PAYMENT', funding: null, expiresAt: null }));
    expect(
      [entry.amount, entry.cashAmount, entry.promotionalAmount, entry.endingCash, entry.endingPromotional].map(String),
    ).toEqual(['10.50', '10.50', '0.00', '10.50', '0.00']);
    expect(wallet.availableBalance.toString()).toBe('10.50');
  });

  it('draws promotional lots first, soonest expiry then oldest, never-expiring last, then cash', () => {
    const wallet = openWallet();
    wallet.credit({ amount: usd('20.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    const never = wallet.credit({ amount: usd('5.00'), source: 'PROMOTION', createdBy: by, now: t0 });
    const late = wallet.credit({ amount: usd('3.00'), source: 'PROMOTION', expiresAt: at(48), createdBy: by, now: t0 });
    const soon = wallet.credit({ amount: usd('2.00'), source: 'PROMOTION', expiresAt: at(24), createdBy: by, now: at(1) });
    const lots = wallet.takeChanges().lotsCreated;
    const debit = wallet.debit({ amount: usd('12.00'), source: 'INVOICE', createdBy: by, now: at(2) });
    expect(debit.funding!.lots.map((lot) => [lot.lotId, lot.amount.toString()])).toEqual([
      [lots[2].id, '2.00'],
      [lots[1].id, '3.00'],
      [lots[0].id, '5.00'],
    ]);
    expect(debit.funding!.cash.toString()).toBe('2.00');
    expect(
      [debit.amount, debit.cashAmount, debit.promotionalAmount, debit.endingCash, debit.endingPromotional].map(String),
    ).toEqual(['-12.00', '-2.00', '-10.00', '18.00', '0.00']);
    expect([never.type, late.expiresAt, soon.expiresAt]).toEqual(['credit', at(48), at(24)]);
  });

  it('refuses to spend beyond available + credit_limit, and allows exactly down to −credit_limit', () => {
    const wallet = openWallet({ creditLimit: '5.00' });
    wallet.credit({ amount: usd('10.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    expect(code(() => wallet.debit({ amount: usd('15.01'), source: 'CHARGE', createdBy: by, now: t0 }))).toBe(
      'INSUFFICIENT_FUNDS',
    );
    const debit = wallet.debit({ amount: usd('15.00'), source: 'CHARGE', createdBy: by, now: t0 });
    expect(debit.endingCash.toString()).toBe('-5.00');
    expect(code(() => wallet.debit({ amount: usd('0.01'), source: 'CHARGE', createdBy: by, now: t0 }))).toBe(
      'INSUFFICIENT_FUNDS',
    );
  });

  it('leaves itself untouched by a refused debit: the next one is decided as if the refused one was never asked', () => {
    // A batch of debits decides every item in memory on the locked wallet and writes only the applied ones.
    const wallet = openWallet();
    wallet.credit({ amount: usd('10.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    wallet.credit({ amount: usd('3.00'), source: 'PROMOTION', expiresAt: at(24), createdBy: by, now: t0 });
    wallet.debit({ amount: usd('1.00'), source: 'CHARGE', createdBy: by, now: t0 });
    const before = { state: structuredClone(wallet.snapshot), pending: wallet.takeChanges() };
    for (const amount of ['12.01', '0.00', '-1.00'])
      expect(code(() => wallet.debit({ amount: usd(amount), source: 'CHARGE', createdBy: by, now: t0 }))).not.toBeUndefined();
    expect(code(() => wallet.debit({ amount: Money.of('1.00', 'EUR'), source: 'CHARGE', createdBy: by, now: t0 }))).toBe(
      'CURRENCY_MISMATCH',
    );
    expect(wallet.snapshot).toEqual(before.state);
    expect(wallet.takeChanges()).toEqual({ entries: [], lotsCreated: [], lotsDrawn: [], storedVersion: before.state.version });
    const next = wallet.debit({ amount: usd('12.00'), source: 'CHARGE', createdBy: by, now: t0 });
    expect([next.promotionalAmount, next.cashAmount, next.endingCash].map(String)).toEqual(['-2.00', '-10.00', '0.00']);
  });

  it('does not spend expired lots even before the expiry job ran', () => {
    const wallet = openWallet();
    wallet.credit({ amount: usd('5.00'), source: 'PROMOTION', expiresAt: at(1), createdBy: by, now: t0 });
    expect(code(() => wallet.debit({ amount: usd('1.00'), source: 'CHARGE', createdBy: by, now: at(1) }))).toBe(
      'INSUFFICIENT_FUNDS',
    );
    const [expiry] = wallet.expireLots(at(1), by);
    expect([
      expiry.type,
      expiry.amount.toString(),
      expiry.promotionalAmount.toString(),
      expiry.endingPromotional.toString(),
    ]).toEqual(['expiry', '-5.00', '-5.00', '0.00']);
    expect(wallet.expireLots(at(2), by)).toEqual([]);
  });

  it('enforces max_single_credit and max_balance', () => {
    const wallet = openWallet({ maxSingleCredit: '100.00', maxBalance: '150.00' });
    expect(code(() => wallet.credit({ amount: usd('100.01'), source: 'PAYMENT', createdBy: by, now: t0 }))).toBe(
      'LIMIT_EXCEEDED',
    );
    wallet.credit({ amount: usd('100.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    expect(code(() => wallet.credit({ amount: usd('50.01'), source: 'PAYMENT', createdBy: by, now: t0 }))).toBe('LIMIT_EXCEEDED');
    expect(code(() => wallet.adjust({ amount: usd('50.01'), source: 'MANUAL', createdBy: by, now: t0 }))).toBe('LIMIT_EXCEEDED');
  });

  it('refuses zero, negative, other currencies and expiry on non-promotional credits', () => {
    const wallet = openWallet();
    expect(code(() => wallet.credit({ amount: usd('0.00'), source: 'PAYMENT', createdBy: by, now: t0 }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(code(() => wallet.debit({ amount: usd('-1.00'), source: 'PAYMENT', createdBy: by, now: t0 }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(code(() => wallet.credit({ amount: Money.of('1.00', 'EUR'), source: 'PAYMENT', createdBy: by, now: t0 }))).toBe(
      'CURRENCY_MISMATCH',
    );
    expect(code(() => wallet.credit({ amount: usd('1.00'), source: 'PAYMENT', expiresAt: at(1), createdBy: by, now: t0 }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(code(() => wallet.credit({ amount: usd('1.00'), source: 'PROMOTION', expiresAt: t0, createdBy: by, now: t0 }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(code(() => wallet.adjust({ amount: usd('0.00'), source: 'MANUAL', createdBy: by, now: t0 }))).toBe('VALIDATION_ERROR');
  });

  it('keeps its balances equal to the ledger under any sequence of operations (property)', () => {
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant('credit' as const),
        cents: fc.integer({ min: 1, max: 50_000 }),
        promo: fc.boolean(),
        hours: fc.option(fc.integer({ min: 1, max: 72 })),
      }),
      fc.record({ kind: fc.constant('debit' as const), cents: fc.integer({ min: 1, max: 50_000 }) }),
      fc.record({
        kind: fc.constant('adjust' as const),
        cents: fc.integer({ min: -50_000, max: 50_000 }).filter((cents) => cents !== 0),
      }),
      fc.record({ kind: fc.constant('expire' as const) }),
      fc.record({ kind: fc.constant('tick' as const), hours: fc.integer({ min: 1, max: 24 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), fc.integer({ min: 0, max: 10_000 }), (operations, creditLimitCents) => {
        const wallet = openWallet({ creditLimit: (creditLimitCents / 100).toFixed(2) });
        let now = t0;
        const entries: LedgerEntry[] = [];
        for (const operation of operations) {
          const amount = (cents: number) => usd((cents / 100).toFixed(2));
          try {
            if (operation.kind === 'credit') {
              const expiresAt = operation.promo && operation.hours ? new Date(now.getTime() + operation.hours * 3_600_000) : null;
              entries.push(
                wallet.credit({
                  amount: amount(operation.cents),
                  source: operation.promo ? 'PROMOTION' : 'PAYMENT',
                  expiresAt,
                  createdBy: by,
                  now,
                }),
              );
            } else if (operation.kind === 'debit') {
              entries.push(wallet.debit({ amount: amount(operation.cents), source: 'CHARGE', createdBy: by, now }));
            } else if (operation.kind === 'adjust') {
              entries.push(wallet.adjust({ amount: amount(operation.cents), source: 'MANUAL', createdBy: by, now }));
            } else if (operation.kind === 'expire') {
              entries.push(...wallet.expireLots(now, by));
            } else {
              now = new Date(now.getTime() + operation.hours * 3_600_000);
            }
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
          }
        }
        const s = wallet.snapshot;
        const sum = (pick: (entry: LedgerEntry) => Money) => entries.reduce((total, entry) => total.plus(pick(entry)), usd('0'));
        expect(sum((entry) => entry.cashAmount).eq(s.cash)).toBe(true);
        expect(sum((entry) => entry.promotionalAmount).eq(s.promotional)).toBe(true);
        expect(sum((entry) => entry.amount).eq(s.cash.plus(s.promotional))).toBe(true);
        expect(s.lots.reduce((total, lot) => total.plus(lot.remaining), usd('0')).eq(s.promotional)).toBe(true);
        expect(s.lots.every((lot) => !lot.remaining.isNegative())).toBe(true);
        expect(wallet.availableBalance.gte(s.limits.creditLimit.negate())).toBe(true);
        let cash = usd('0');
        let promotional = usd('0');
        for (const entry of entries) {
          cash = cash.plus(entry.cashAmount);
          promotional = promotional.plus(entry.promotionalAmount);
          expect(entry.endingCash.eq(cash) && entry.endingPromotional.eq(promotional)).toBe(true);
          if (entry.funding) {
            const funded = entry.funding.lots.reduce((total, lot) => total.plus(lot.amount), entry.funding.cash);
            expect(funded.eq(entry.amount.abs())).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('replays a (source, reference) only for the same kind of line, signed amount and currency', () => {
    const wallet = openWallet();
    const credit = wallet.credit({ amount: usd('50.00'), source: 'PAYMENT', reference: 'r', createdBy: by, now: t0 });
    const debit = wallet.debit({ amount: usd('20.00'), source: 'CHARGE', reference: 'd', createdBy: by, now: t0 });
    expect(replayOf(credit, 'credit', usd('50'))).toBe(credit);
    expect(replayOf(debit, 'debit', usd('-20.00'))).toBe(debit);
    expect(code(() => replayOf(credit, 'debit', usd('-20.00')))).toBe('REFERENCE_ALREADY_USED');
    expect(code(() => replayOf(credit, 'debit', usd('-50.00')))).toBe('REFERENCE_ALREADY_USED');
    expect(code(() => replayOf(credit, 'adjustment', usd('50.00')))).toBe('REFERENCE_ALREADY_USED');
    expect(code(() => replayOf(credit, 'credit', usd('50.01')))).toBe('REFERENCE_ALREADY_USED');
    expect(code(() => replayOf(credit, 'credit', Money.of('50.00', 'EUR')))).toBe('REFERENCE_ALREADY_USED');
    expect(code(() => replayOf(debit, 'debit', usd('20.00')))).toBe('REFERENCE_ALREADY_USED');
    try {
      replayOf(credit, 'debit', usd('-20.00'));
    } catch (error) {
      expect((error as DomainError).details).toEqual({ transaction_id: credit.id });
    }
  });

  it('tells whether it would take a credit, without changing anything', () => {
    const wallet = openWallet({ maxBalance: '30.00', maxSingleCredit: '10.00' });
    wallet.credit({ amount: usd('10.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    wallet.credit({ amount: usd('10.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    const before = structuredClone(wallet.snapshot);
    expect(code(() => wallet.assertCreditAllowed(usd('10.00')))).toBeUndefined();
    expect(code(() => wallet.assertCreditAllowed(usd('10.01')))).toBe('LIMIT_EXCEEDED');
    wallet.credit({ amount: usd('5.00'), source: 'PAYMENT', createdBy: by, now: t0 });
    expect(code(() => wallet.assertCreditAllowed(usd('5.01')))).toBe('LIMIT_EXCEEDED');
    expect(code(() => wallet.assertCreditAllowed(usd('0.00')))).toBe('VALIDATION_ERROR');
    expect(wallet.snapshot.version).toBe(before.version + 1);
  });
});
