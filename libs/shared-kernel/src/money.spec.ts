import Big from 'big.js';
import fc from 'fast-check';
import { CURRENCY_SCALES } from './currency';
import { DomainError } from './domain-error';
import { Money, roundHalfEven } from './money';

function parseError(value: unknown, currency: string, param?: string): DomainError {
  try {
    Money.parse(value, currency, param);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`${String(value)} ${currency} was accepted`);
}

/** Renders an integer count of minor units at the given scale, e.g. (-5n, 2) → '-0.05'. */
function fromMinorUnits(units: bigint, scale: number): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const sign = units < 0n ? '-' : '';
  return scale === 0 ? sign + digits : `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

const currencies = Object.keys(CURRENCY_SCALES);
const currencyArb = fc.constantFrom(...currencies);
/** Any amount of a currency within the 15 integer digits accepted from clients. */
const amountArb = currencyArb.chain((currency) => {
  const bound = 10n ** BigInt(15 + CURRENCY_SCALES[currency]) - 1n;
  return fc.tuple(fc.constant(currency), fc.bigInt({ min: -bound, max: bound }));
});

describe('Money.parse', () => {
  it.each([
    ['10.50', 'USD', '10.50'],
    ['10.5', 'USD', '10.50'],
    ['10', 'USD', '10.00'],
    ['-5.25', 'USD', '-5.25'],
    ['0', 'USD', '0.00'],
    ['-0.00', 'USD', '0.00'],
    ['007.10', 'EUR', '7.10'],
    ['1000', 'JPY', '1000'],
    ['0.001', 'BHD', '0.001'],
    ['1.0001', 'CLF', '1.0001'],
    ['999999999999999.99', 'USD', '999999999999999.99'],
  ])('accepts %p %s as %s', (value, currency, rendered) => {
    expect(Money.parse(value, currency).toString()).toBe(rendered);
  });

  it.each([
    ['1e3', 'USD', 'INVALID_FORMAT'],
    ['+1', 'USD', 'INVALID_FORMAT'],
    ['NaN', 'USD', 'INVALID_FORMAT'],
    ['Infinity', 'USD', 'INVALID_FORMAT'],
    ['', 'USD', 'INVALID_FORMAT'],
    [' 1', 'USD', 'INVALID_FORMAT'],
    ['1 ', 'USD', 'INVALID_FORMAT'],
    ['1.', 'USD', 'INVALID_FORMAT'],
    ['.5', 'USD', 'INVALID_FORMAT'],
    ['1,50', 'USD', 'INVALID_FORMAT'],
    ['--1', 'USD', 'INVALID_FORMAT'],
    ['１', 'USD', 'INVALID_FORMAT'],
    [12, 'USD', 'INVALID_FORMAT'],
    [null, 'USD', 'INVALID_FORMAT'],
    [undefined, 'USD', 'INVALID_FORMAT'],
    [{ value: '1' }, 'USD', 'INVALID_FORMAT'],
    ['10.501', 'USD', 'TOO_PRECISE'],
    ['10.500', 'USD', 'TOO_PRECISE'],
    ['10.5', 'JPY', 'TOO_PRECISE'],
    ['10.0', 'JPY', 'TOO_PRECISE'],
    ['1.0001', 'BHD', 'TOO_PRECISE'],
    ['1000000000000000', 'USD', 'OUT_OF_RANGE'],
    ['-1000000000000000', 'JPY', 'OUT_OF_RANGE'],
  ])('refuses %p %s with %s', (value, currency, code) => {
    const error = parseError(value, currency);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.kind).toBe('invalid_request');
    expect(error.param).toBe('amount');
    expect(error.errors).toEqual([{ param: 'amount', code, message: expect.any(String) }]);
  });

  it('reports the given parameter name', () => {
    expect(parseError('abc', 'USD', 'lines[2].unit_price').errors?.[0].param).toBe('lines[2].unit_price');
  });

  it('treats an unknown currency as a programming error, not a client error', () => {
    expect(() => Money.parse('1', 'XYZ')).toThrow(Error);
    expect(() => Money.parse('1', 'XYZ')).not.toThrow(DomainError);
  });
});

describe('Money.of and Money.zero', () => {
  it('builds trusted values, from strings or Big', () => {
    expect(Money.of('12.3', 'USD').toString()).toBe('12.30');
    expect(Money.of(new Big('1e3'), 'JPY').toString()).toBe('1000');
    expect(Money.of('10.500', 'USD').toString()).toBe('10.50');
    expect(Money.zero('KWD').toString()).toBe('0.000');
  });

  it('throws a plain Error for over-precise values or unknown currencies', () => {
    expect(() => Money.of('0.001', 'USD')).toThrow('more than 2 decimal places');
    expect(() => Money.of('1.5', 'JPY')).toThrow(Error);
    expect(() => Money.zero('usd')).toThrow('Unknown currency');
  });

  it('is immutable', () => {
    const money = Money.of('1.00', 'USD');
    const exposed = money.amount;
    exposed.c[0] = 9;
    expect(money.toString()).toBe('1.00');
    expect(Object.isFrozen(money)).toBe(true);
    expect(() => {
      (money as { currency: string }).currency = 'EUR';
    }).toThrow(TypeError);
  });
});

describe('Money arithmetic and comparison', () => {
  const usd = (value: string) => Money.of(value, 'USD');

  it('adds, subtracts, negates and takes absolute values', () => {
    expect(usd('0.10').plus(usd('0.20')).toString()).toBe('0.30');
    expect(usd('0.10').minus(usd('0.30')).toString()).toBe('-0.20');
    expect(usd('5').negate().toString()).toBe('-5.00');
    expect(usd('-5').abs().toString()).toBe('5.00');
    expect(usd('0').negate().toString()).toBe('0.00');
    expect(usd('0.01').minus(usd('0.01')).toString()).toBe('0.00');
  });

  it('tells sign', () => {
    expect(usd('0').isZero()).toBe(true);
    expect(usd('-0.01').isNegative()).toBe(true);
    expect(usd('-0.01').isPositive()).toBe(false);
    expect(usd('0.01').isPositive()).toBe(true);
    expect(usd('0').isPositive() || usd('0').isNegative()).toBe(false);
  });

  it('compares', () => {
    expect(usd('1').compare(usd('2'))).toBe(-1);
    expect(usd('2').compare(usd('2.00'))).toBe(0);
    expect(usd('3').compare(usd('2'))).toBe(1);
    expect(usd('1').lt(usd('2')) && usd('1').lte(usd('1')) && usd('2').gt(usd('1')) && usd('2').gte(usd('2'))).toBe(true);
    expect(usd('1').eq(usd('1.00'))).toBe(true);
    expect(usd('1').eq(usd('1.01'))).toBe(false);
    expect(Money.min(usd('3'), usd('-1'), usd('2')).toString()).toBe('-1.00');
    expect(Money.max(usd('3'), usd('-1'), usd('2')).toString()).toBe('3.00');
  });

  it.each<[string, (a: Money, b: Money) => unknown]>([
    ['plus', (a, b) => a.plus(b)],
    ['minus', (a, b) => a.minus(b)],
    ['compare', (a, b) => a.compare(b)],
    ['eq', (a, b) => a.eq(b)],
    ['min', (a, b) => Money.min(a, b)],
  ])('refuses to %s amounts in different currencies', (_name, operation) => {
    let thrown: unknown;
    try {
      operation(usd('1'), Money.of('1', 'EUR'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ kind: 'invalid_request', code: 'CURRENCY_MISMATCH' });
  });

  it('multiplies and divides with half-even rounding to the currency scale', () => {
    expect(usd('10.00').times(new Big('0.2345')).toString()).toBe('2.34');
    expect(usd('10.00').times(new Big('0.2355')).toString()).toBe('2.36');
    expect(usd('-10.00').times(new Big('0.2345')).toString()).toBe('-2.34');
    expect(usd('0.05').times(new Big('0.1')).toString()).toBe('0.00');
    expect(Money.of('100', 'JPY').times(new Big('0.125')).toString()).toBe('12');
    expect(Money.of('1', 'BHD').times(new Big('1.00051')).toString()).toBe('1.001');
    expect(usd('10.00').divide(new Big('3')).toString()).toBe('3.33');
    expect(usd('0.05').divide(new Big('2')).toString()).toBe('0.02');
    expect(usd('0.07').divide(new Big('2')).toString()).toBe('0.04');
    expect(usd('-0.05').divide(new Big('2')).toString()).toBe('-0.02');
    expect(usd('1').divide(new Big('-3')).toString()).toBe('-0.33');
    expect(() => usd('1').divide(new Big('0'))).toThrow();
  });

  it('rounds a quotient once, straight to the scale', () => {
    // 0.01 / 1.99999999999999999999999 is just above 0.005: rounding to 20 places first
    // would make it an exact tie and round it down to 0.00.
    expect(usd('0.01').divide(new Big('1.99999999999999999999999')).toString()).toBe('0.01');
  });

  it('is not affected by the global Big configuration', () => {
    const { DP, RM } = Big;
    try {
      Big.DP = 0;
      Big.RM = Big.roundDown;
      expect(usd('10.00').divide(new Big('3')).toString()).toBe('3.33');
      expect(usd('0.05').divide(new Big('2')).toString()).toBe('0.02');
    } finally {
      Big.DP = DP;
      Big.RM = RM;
    }
  });
});

describe('roundHalfEven', () => {
  it.each([
    ['2.345', 2, '2.34'],
    ['2.355', 2, '2.36'],
    ['-2.345', 2, '-2.34'],
    ['-2.355', 2, '-2.36'],
    ['2.3450001', 2, '2.35'],
    ['0.5', 0, '0'],
    ['1.5', 0, '2'],
    ['2.5', 0, '2'],
    ['1.0005', 3, '1'],
  ])('%s at scale %d is %s', (value, scale, expected) => {
    expect(roundHalfEven(new Big(value), scale).toFixed()).toBe(expected);
  });
});

describe('Money rendering', () => {
  it.each([
    ['10.5', 'USD', '10.50'],
    ['1000', 'JPY', '1000'],
    ['-0.01', 'USD', '-0.01'],
    ['0', 'USD', '0.00'],
    ['1.5', 'KWD', '1.500'],
    ['2', 'UYW', '2.0000'],
    ['123456789012345.67', 'EUR', '123456789012345.67'],
  ])('%s %s renders as %s', (value, currency, rendered) => {
    const money = Money.of(value, currency);
    expect(money.toString()).toBe(rendered);
    expect(JSON.stringify({ amount: money })).toBe(`{"amount":"${rendered}"}`);
  });

  it('exposes the scale of its currency', () => {
    expect([Money.zero('JPY').scale, Money.zero('USD').scale, Money.zero('OMR').scale, Money.zero('CLF').scale]).toEqual([
      0, 2, 3, 4,
    ]);
  });
});

describe('Money properties', () => {
  it('round-trips every amount of every currency through its rendering', () => {
    fc.assert(
      fc.property(amountArb, ([currency, units]) => {
        const text = fromMinorUnits(units, CURRENCY_SCALES[currency]);
        const money = Money.parse(text, currency);
        expect(money.toString()).toBe(text);
        expect(Money.parse(money.toString(), currency).eq(money)).toBe(true);
      }),
    );
  });

  it('loses no precision when adding many amounts', () => {
    fc.assert(
      fc.property(
        currencyArb.chain((currency) =>
          fc.tuple(
            fc.constant(currency),
            fc.array(fc.bigInt({ min: -(10n ** 17n) + 1n, max: 10n ** 17n - 1n }), { minLength: 1, maxLength: 40 }),
          ),
        ),
        ([currency, unitsList]) => {
          const scale = CURRENCY_SCALES[currency];
          const bound = 10n ** BigInt(15 + scale);
          const inRange = unitsList.map((units) => units % bound);
          const total = inRange
            .map((units) => Money.parse(fromMinorUnits(units, scale), currency))
            .reduce((sum, money) => sum.plus(money), Money.zero(currency));
          const expected = inRange.reduce((sum, units) => sum + units, 0n);
          expect(total.toString()).toBe(fromMinorUnits(expected, scale));
        },
      ),
    );
  });

  it('refuses any amount more precise than its currency', () => {
    fc.assert(
      fc.property(amountArb, fc.integer({ min: 1, max: 9 }), ([currency, units], extraDigit) => {
        const text = fromMinorUnits(units * 10n + BigInt(units < 0n ? -extraDigit : extraDigit), CURRENCY_SCALES[currency] + 1);
        const error = parseError(text, currency);
        expect(error.errors?.[0].code).toBe('TOO_PRECISE');
      }),
    );
  });

  it('undoes an addition with a subtraction', () => {
    fc.assert(
      fc.property(
        currencyArb.chain((currency) => {
          const bound = 10n ** BigInt(15 + CURRENCY_SCALES[currency]) - 1n;
          const units = fc.bigInt({ min: -bound, max: bound });
          return fc.tuple(fc.constant(currency), units, units);
        }),
        ([currency, a, b]) => {
          const scale = CURRENCY_SCALES[currency];
          const x = Money.parse(fromMinorUnits(a, scale), currency);
          const y = Money.parse(fromMinorUnits(b, scale), currency);
          expect(x.plus(y).minus(y).eq(x)).toBe(true);
          expect(x.minus(y).plus(y).toString()).toBe(x.toString());
        },
      ),
    );
  });
});
