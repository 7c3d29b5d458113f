import Big from 'big.js';
import { invalidParameter } from './shared-kernel-errors';

/** The API's only decimal grammar: ASCII digits, optional leading '-', optional fraction. */
export const DECIMAL_PATTERN = /^-?\d+(\.\d+)?$/;

export interface DecimalBounds {
  /** Digits before the point, leading zeros not counted. Default 18. */
  maxIntegerDigits?: number;
  /** Digits after the point as written, trailing zeros counted. Default 12. */
  maxScale?: number;
  /** Default true. */
  allowNegative?: boolean;
}

/**
 * Parses a decimal string (tax rate, quantity, FX rate). Numbers are refused, not coerced:
 * a JSON number may already have lost precision. Leading zeros ('007') are accepted and
 * normalised away; trailing fraction zeros count towards the scale, so '1.50' has scale 2.
 */
export function parseDecimal(value: unknown, param: string, bounds: DecimalBounds = {}): Big {
  const { maxIntegerDigits = 18, maxScale = 12, allowNegative = true } = bounds;
  if (typeof value !== 'string' || !DECIMAL_PATTERN.test(value)) {
    throw invalidParameter(param, 'INVALID_FORMAT', 'Must be a decimal string such as "12.34".');
  }
  const negative = value.startsWith('-');
  const [integerPart, fractionPart = ''] = (negative ? value.slice(1) : value).split('.');
  if (integerPart.replace(/^0+/, '').length > maxIntegerDigits) {
    throw invalidParameter(param, 'OUT_OF_RANGE', `Must have at most ${maxIntegerDigits} digits before the decimal point.`);
  }
  if (fractionPart.length > maxScale) {
    throw invalidParameter(param, 'TOO_PRECISE', `Must have at most ${maxScale} decimal places.`);
  }
  const parsed = new Big(value);
  if (!allowNegative && parsed.lt(0)) {
    throw invalidParameter(param, 'OUT_OF_RANGE', 'Must not be negative.');
  }
  return parsed;
}

/** Plain notation, never an exponent; big.js already renders negative zero as '0'. */
export function formatDecimal(value: Big): string {
  return value.toFixed();
}
