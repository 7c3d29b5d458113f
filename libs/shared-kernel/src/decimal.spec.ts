import Big from 'big.js';
import fc from 'fast-check';
import { DECIMAL_PATTERN, type DecimalBounds, formatDecimal, parseDecimal } from './decimal';
import { DomainError } from './domain-error';

function refusal(value: unknown, bounds?: DecimalBounds): string | undefined {
  try {
    parseDecimal(value, 'rate', bounds);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const { code, param, errors } = error as DomainError;
    expect([code, param, errors?.length, errors?.[0].param]).toEqual(['VALIDATION_ERROR', 'rate', 1, 'rate']);
    return errors?.[0].code;
  }
  return undefined;
}

/** What formatDecimal should give back for a grammatical string: no leading or trailing zeros, no '-0'. */
function normalise(text: string): string {
  const negative = text.startsWith('-');
  const [integerPart, fractionPart = ''] = (negative ? text.slice(1) : text).split('.');
  const integer = integerPart.replace(/^0+(?=\d)/, '');
  const fraction = fractionPart.replace(/0+$/, '');
  const magnitude = fraction ? `${integer}.${fraction}` : integer;
  return negative && magnitude !== '0' ? `-${magnitude}` : magnitude;
}

describe('parseDecimal', () => {
  it.each([
    ['0', '0'],
    ['-0', '0'],
    ['12.34', '12.34'],
    ['-12.340', '-12.34'],
    ['007', '7'],
    ['0.000000000001', '0.000000000001'],
    ['999999999999999999.999999999999', '999999999999999999.999999999999'],
    ['000000000000000000000001', '1'],
  ])('accepts %p as %s', (value, formatted) => {
    expect(formatDecimal(parseDecimal(value, 'rate'))).toBe(formatted);
  });

  it.each([
    [12, 'INVALID_FORMAT'],
    [12n, 'INVALID_FORMAT'],
    [null, 'INVALID_FORMAT'],
    [undefined, 'INVALID_FORMAT'],
    [['1'], 'INVALID_FORMAT'],
    [new String('1'), 'INVALID_FORMAT'],
    ['1e3', 'INVALID_FORMAT'],
    ['1E3', 'INVALID_FORMAT'],
    ['+1', 'INVALID_FORMAT'],
    [' 1', 'INVALID_FORMAT'],
    ['1 ', 'INVALID_FORMAT'],
    ['1\n', 'INVALID_FORMAT'],
    ['1.', 'INVALID_FORMAT'],
    ['.5', 'INVALID_FORMAT'],
    ['-.5', 'INVALID_FORMAT'],
    ['-', 'INVALID_FORMAT'],
    ['NaN', 'INVALID_FORMAT'],
    ['Infinity', 'INVALID_FORMAT'],
    ['-Infinity', 'INVALID_FORMAT'],
    ['', 'INVALID_FORMAT'],
    ['--1', 'INVALID_FORMAT'],
    ['1.2.3', 'INVALID_FORMAT'],
    ['1_000', 'INVALID_FORMAT'],
    ['0x10', 'INVALID_FORMAT'],
    ['１', 'INVALID_FORMAT'],
    ['٣', 'INVALID_FORMAT'],
    ['1000000000000000000', 'OUT_OF_RANGE'],
    ['-1000000000000000000', 'OUT_OF_RANGE'],
    ['0.0000000000001', 'TOO_PRECISE'],
    ['1.0000000000000', 'TOO_PRECISE'],
  ])('refuses %p with %s', (value, code) => {
    expect(refusal(value)).toBe(code);
  });

  it('applies the given bounds', () => {
    expect(refusal('1000', { maxIntegerDigits: 3 })).toBe('OUT_OF_RANGE');
    expect(refusal('0999.5', { maxIntegerDigits: 3 })).toBeUndefined();
    expect(refusal('1.234', { maxScale: 2 })).toBe('TOO_PRECISE');
    expect(refusal('1', { maxScale: 0 })).toBeUndefined();
    expect(refusal('1.0', { maxScale: 0 })).toBe('TOO_PRECISE');
    expect(refusal('-0.01', { allowNegative: false })).toBe('OUT_OF_RANGE');
    expect(refusal('-0', { allowNegative: false })).toBeUndefined();
    expect(refusal('0.01', { allowNegative: false })).toBeUndefined();
  });

  it('round-trips every grammatical string within bounds, modulo leading and trailing zeros', () => {
    const digits = (minLength: number, maxLength: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
    const grammatical = fc
      .tuple(fc.boolean(), digits(1, 18), fc.option(digits(1, 12)))
      .map(([negative, integer, fraction]) => `${negative ? '-' : ''}${integer}${fraction === null ? '' : `.${fraction}`}`);
    fc.assert(
      fc.property(grammatical, (text) => {
        expect(text).toMatch(DECIMAL_PATTERN);
        const parsed = parseDecimal(text, 'rate');
        expect(formatDecimal(parsed)).toBe(normalise(text));
        expect(parsed.eq(new Big(normalise(text)))).toBe(true);
      }),
    );
  });

  it('refuses every string outside the grammar', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789-.e+ ') })), (text) => {
        fc.pre(!DECIMAL_PATTERN.test(text));
        expect(refusal(text)).toBe('INVALID_FORMAT');
      }),
    );
  });
});

describe('formatDecimal', () => {
  it.each([
    ['1e30', '1000000000000000000000000000000'],
    ['1e-10', '0.0000000001'],
    ['-0', '0'],
    ['-1.50', '-1.5'],
  ])('renders %s as %s without exponent', (value, expected) => {
    expect(formatDecimal(new Big(value))).toBe(expected);
  });
});
