import Big from 'big.js';
import { DECIMAL_PATTERN } from '@app/shared-kernel';
import { invalidValue, outOfRange } from './formula-errors';
import { FORMULA_LIMITS } from './limits';

/**
 * The formulas' own big.js constructor (catalog model §3.6): division keeps 20 fraction digits,
 * rounding half-up, and no exponent notation between 1e-40 and 1e40. It is private to this
 * folder: the global `Big` is never configured, and every value entering a formula is copied
 * into this constructor so that its settings apply (big.js reads them from the left operand).
 */
const D = Big();
D.DP = FORMULA_LIMITS.divisionScale;
D.RM = Big.roundHalfUp;
D.NE = -40;
D.PE = 40;

const RESULT_LIMIT = new D('1e18');

export const ZERO = new D(0);

/** A number literal the lexer has already checked (`digit+ ("." digit+)?`). */
export function literal(text: string): Big {
  return new D(text);
}

/** A caller's value for `key`: a decimal string (`^-?\d+(\.\d+)?$`) or a Big. */
export function bindingValue(value: string | Big, key: string): Big {
  if (value instanceof Big) return new D(value);
  if (typeof value !== 'string' || !DECIMAL_PATTERN.test(value)) throw invalidValue(key);
  return new D(value);
}

/** round: half away from zero (big.js `roundHalfUp` works on the magnitude). */
export function roundHalfAwayFromZero(value: Big, places: number): Big {
  return value.round(places, Big.roundHalfUp);
}

/** ceil: toward +∞ — away from zero above zero, toward zero below. */
export function ceil(value: Big, places: number): Big {
  return value.round(places, value.gte(ZERO) ? Big.roundUp : Big.roundDown);
}

/** floor: toward −∞, the mirror of ceil. */
export function floor(value: Big, places: number): Big {
  return value.round(places, value.gte(ZERO) ? Big.roundDown : Big.roundUp);
}

/**
 * A result (a cost value, a unit price): rounded half-up to 12 fraction digits; a magnitude of
 * 10^18 or more is refused. `key` names the expression for the error, when it has one.
 */
export function finishResult(value: Big, key?: string): Big {
  const rounded = value.round(FORMULA_LIMITS.resultScale, Big.roundHalfUp);
  if (rounded.abs().gte(RESULT_LIMIT)) throw outOfRange(key);
  return rounded;
}

/** Plain notation, trailing zeros stripped, never "-0": "12.5", "0", "-3". */
export function renderDecimal(value: Big): string {
  return value.eq(ZERO) ? '0' : value.toFixed();
}
