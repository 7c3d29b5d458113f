/** The bounds of the formula language (catalog model §3.6). */
export const FORMULA_LIMITS = {
  /** Characters in one expression's text. */
  maxLength: 1000,
  /** AST nodes in one expression (numbers, references, operators, calls). */
  maxNodes: 200,
  /** Digits before the point of a number literal, leading zeros not counted (the amount bound). */
  maxIntegerDigits: 18,
  /** Digits after the point of a number literal (the division scale). */
  maxFractionDigits: 20,
  /** Characters in a key (the cost key bound). */
  maxKeyLength: 64,
  /** Arguments of min and max. */
  minFunctionArgs: 2,
  maxFunctionArgs: 16,
  /** The `places` literal of round, ceil and floor. */
  maxPlaces: 12,
  /** References followed from an expression to a value, counting each step. */
  maxDepth: 16,
  /** Distinct keys one evaluation may resolve. */
  maxKeys: 64,
  /** Fraction digits kept by a division. */
  divisionScale: 20,
  /** Fraction digits of a result (a cost value, a unit price). */
  resultScale: 12,
} as const;

/** A key as the API stores it: `[A-Za-z0-9._-]{1,64}`. */
export const FORMULA_KEY_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function isFormulaKey(text: string): boolean {
  return FORMULA_KEY_PATTERN.test(text);
}
