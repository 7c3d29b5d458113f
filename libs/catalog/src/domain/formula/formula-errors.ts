import { DomainError } from '@app/shared-kernel';
import { CatalogErrors } from '../catalog-errors';
import { FORMULA_LIMITS } from './limits';

/**
 * The four refusals of the formula language (catalog model §3.6, §7). The HTTP edge maps the
 * kinds: `invalid_request` → 400, `rule_violation` → 422. None sets `param`: the field
 * (`expression`, `price_expression`, …) is the caller's to name.
 */
export const FORMULA_SYNTAX_ERROR = CatalogErrors.FORMULA_SYNTAX_ERROR.code;
export const FORMULA_UNKNOWN_KEY = CatalogErrors.FORMULA_UNKNOWN_KEY.code;
export const FORMULA_CYCLE = CatalogErrors.FORMULA_CYCLE.code;
export const FORMULA_EVALUATION_ERROR = CatalogErrors.FORMULA_EVALUATION_ERROR.code;

export type FormulaSyntaxReason = 'too_long' | 'too_many_nodes' | 'number_too_long' | 'key_too_long';

export type FormulaEvaluationReason =
  | 'division_by_zero'
  | 'out_of_range'
  | 'depth'
  | 'too_many_keys'
  /** A value binding that is not a decimal string (a caller's what-if value, say). */
  | 'invalid_value';

/**
 * The text does not parse. `position` is the 0-based character offset of the offending
 * character (the text's length when the formula ends too early). `key` names the stored
 * expression that failed when it is not the one being submitted.
 */
export function formulaSyntaxError(
  message: string,
  position: number,
  extra: { reason?: FormulaSyntaxReason; key?: string } = {},
): DomainError {
  const details: Record<string, unknown> = { position };
  if (extra.reason !== undefined) details.reason = extra.reason;
  if (extra.key !== undefined) details.key = extra.key;
  const where = extra.key === undefined ? '' : ` in the expression of '${extra.key}'`;
  return CatalogErrors.FORMULA_SYNTAX_ERROR.create(`${message} (at position ${position}${where})`, {
    details,
  });
}

/** Keys no binding is visible for. `suggestions` maps an unknown `a-b` whose parts are known to `a - b`. */
export function formulaUnknownKey(keys: readonly string[], suggestions: Record<string, string>): DomainError {
  const sorted = [...new Set(keys)].sort();
  const hints = Object.entries(suggestions).map(([unknown, fix]) => ` '${unknown}' is not a key; to subtract, write ${fix}.`);
  const message = `Unknown key${sorted.length === 1 ? '' : 's'}: ${sorted.join(', ')}.${hints.join('')}`;
  const details: Record<string, unknown> = { keys: sorted };
  if (hints.length > 0) details.suggestions = suggestions;
  return CatalogErrors.FORMULA_UNKNOWN_KEY.create(message, { details });
}

/** A key reaches itself: `path` starts and ends with the same key, e.g. ["a", "b", "a"]. */
export function formulaCycle(path: readonly string[]): DomainError {
  return CatalogErrors.FORMULA_CYCLE.create(`The formulas reference each other in a cycle: ${path.join(' → ')}.`, {
    details: { path: [...path] },
  });
}

export function divisionByZero(at: string, key: string | undefined): DomainError {
  return evaluationError('division_by_zero', `Division by zero in ${at}${inKey(key)}.`, { at, ...keyDetail(key) });
}

export function outOfRange(key: string | undefined): DomainError {
  return evaluationError('out_of_range', `The value${inKey(key)} is out of range: its magnitude must stay below 10^18.`, {
    limit: '1000000000000000000',
    ...keyDetail(key),
  });
}

export function referenceTooDeep(path: readonly string[]): DomainError {
  return evaluationError('depth', `References are nested more than ${FORMULA_LIMITS.maxDepth} deep: ${path.join(' → ')}.`, {
    limit: FORMULA_LIMITS.maxDepth,
    path: [...path],
  });
}

export function tooManyKeys(): DomainError {
  return evaluationError('too_many_keys', `One evaluation may resolve at most ${FORMULA_LIMITS.maxKeys} keys.`, {
    limit: FORMULA_LIMITS.maxKeys,
  });
}

export function invalidValue(key: string): DomainError {
  return evaluationError('invalid_value', `The value of '${key}' is not a decimal string such as "12.34".`, { key });
}

function evaluationError(reason: FormulaEvaluationReason, message: string, details: Record<string, unknown>): DomainError {
  return CatalogErrors.FORMULA_EVALUATION_ERROR.create(message, { details: { reason, ...details } });
}

function inKey(key: string | undefined): string {
  return key === undefined ? '' : ` of '${key}'`;
}

function keyDetail(key: string | undefined): { key?: string } {
  return key === undefined ? {} : { key };
}
