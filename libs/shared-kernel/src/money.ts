import Big from 'big.js';
import { type CurrencyCode, currencyScale } from './currency';
import { parseDecimal } from './decimal';
import { SharedErrors } from './shared-kernel-errors';

/** Amounts from clients beyond a trillion-scale are refused as absurd. */
const MAX_INTEGER_DIGITS = 15;

export function roundHalfEven(value: Big, scale: number): Big {
  return value.round(scale, Big.roundHalfEven);
}

// big.js rounds a quotient to its constructor's DP with its RM. A private constructor lets
// a division round once, half-even, straight to the currency scale: rounding to Big.DP
// first and then to the scale could turn an exact tie into a wrong result.
const Quotient = Big();
Quotient.RM = Big.roundHalfEven;

/** An amount in one currency, never more precise than the currency's minor unit. Immutable. */
export class Money {
  readonly #amount: Big;

  private constructor(
    amount: Big,
    readonly currency: CurrencyCode,
  ) {
    this.#amount = amount.eq(0) ? new Big(0) : amount;
    Object.freeze(this);
  }

  /**
   * Parses an amount sent by a client: a decimal string (a JSON number is refused) with at
   * most the currency's scale of fraction digits as written, so '10.500' USD is refused.
   * `currency` must already be a valid code (see parseCurrency).
   */
  static parse(value: unknown, currency: CurrencyCode, param = 'amount'): Money {
    const amount = parseDecimal(value, param, {
      maxIntegerDigits: MAX_INTEGER_DIGITS,
      maxScale: currencyScale(currency),
    });
    return new Money(amount, currency);
  }

  /** For trusted values (database, computations); over-precision is a programming error. */
  static of(amount: Big | string, currency: CurrencyCode): Money {
    const scale = currencyScale(currency);
    const value = new Big(amount);
    if (!value.round(scale, Big.roundDown).eq(value)) {
      throw new Error(`${value.toFixed()} has more than ${scale} decimal places, the scale of ${currency}`);
    }
    return new Money(value, currency);
  }

  static zero(currency: CurrencyCode): Money {
    currencyScale(currency);
    return new Money(new Big(0), currency);
  }

  static min(first: Money, ...rest: Money[]): Money {
    return rest.reduce((least, next) => (next.lt(least) ? next : least), first);
  }

  static max(first: Money, ...rest: Money[]): Money {
    return rest.reduce((most, next) => (next.gt(most) ? next : most), first);
  }

  /** A copy: the Big held inside is never exposed to mutation. */
  get amount(): Big {
    return new Big(this.#amount);
  }

  get scale(): number {
    return currencyScale(this.currency);
  }

  plus(other: Money): Money {
    this.assertSameCurrency(other);
    return new Money(this.#amount.plus(other.#amount), this.currency);
  }

  minus(other: Money): Money {
    this.assertSameCurrency(other);
    return new Money(this.#amount.minus(other.#amount), this.currency);
  }

  negate(): Money {
    return new Money(this.#amount.neg(), this.currency);
  }

  abs(): Money {
    return new Money(this.#amount.abs(), this.currency);
  }

  /** Rounded half-even to the currency scale. */
  times(factor: Big): Money {
    return new Money(roundHalfEven(this.#amount.times(factor), this.scale), this.currency);
  }

  /** Rounded half-even to the currency scale; a zero divisor throws. */
  divide(divisor: Big): Money {
    Quotient.DP = this.scale;
    const quotient = new Quotient(this.#amount.toFixed()).div(divisor.toFixed());
    return new Money(new Big(quotient.toFixed()), this.currency);
  }

  isZero(): boolean {
    return this.#amount.eq(0);
  }

  isNegative(): boolean {
    return this.#amount.lt(0);
  }

  isPositive(): boolean {
    return this.#amount.gt(0);
  }

  compare(other: Money): -1 | 0 | 1 {
    this.assertSameCurrency(other);
    return this.#amount.cmp(other.#amount);
  }

  eq(other: Money): boolean {
    return this.compare(other) === 0;
  }

  gt(other: Money): boolean {
    return this.compare(other) > 0;
  }

  gte(other: Money): boolean {
    return this.compare(other) >= 0;
  }

  lt(other: Money): boolean {
    return this.compare(other) < 0;
  }

  lte(other: Money): boolean {
    return this.compare(other) <= 0;
  }

  /** Exactly the currency scale: '10.50' USD, '1000' JPY, '-0.01'. */
  toString(): string {
    return this.#amount.toFixed(this.scale);
  }

  toJSON(): string {
    return this.toString();
  }

  private assertSameCurrency(other: Money): void {
    if (other.currency !== this.currency) {
      throw SharedErrors.CURRENCY_MISMATCH.create(`Amounts in ${this.currency} and ${other.currency} cannot be combined.`, {
        details: { currencies: [this.currency, other.currency] },
      });
    }
  }
}
