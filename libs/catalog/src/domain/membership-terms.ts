import Big from 'big.js';
import { DomainError, FieldError, parseDecimal, SharedErrors } from '@app/shared-kernel';
import { CatalogErrors } from './catalog-errors';

export const REFRESH_UNITS = ['day', 'week', 'month', 'year', 'billing_cycle', 'never'] as const;
export type RefreshUnit = (typeof REFRESH_UNITS)[number];
export type TrackMode = 'latest' | 'pinned';
export type AllowanceKind = 'REFRESHING' | 'POOL';

/** The quantity band of a membership. */
export interface QuantityBand {
  minQuantity: number;
  defaultQuantity: number;
  maxQuantity: number | null;
}

/** The seven allowance fields of a membership; decimals as strings. */
export interface Allowance {
  includedQuantity: string | null;
  refreshCount: number | null;
  refreshUnit: RefreshUnit | null;
  rolloverEnabled: boolean;
  rolloverExpiryPeriods: number | null;
  rolloverMax: string | null;
  unitLimit: string | null;
}

export type MembershipTerms = QuantityBand & Allowance;

export const DEFAULT_BAND: QuantityBand = { minQuantity: 1, defaultQuantity: 1, maxQuantity: null };
export const NO_ALLOWANCE: Allowance = {
  includedQuantity: null,
  refreshCount: null,
  refreshUnit: null,
  rolloverEnabled: false,
  rolloverExpiryPeriods: null,
  rolloverMax: null,
  unitLimit: null,
};

/** What a request says about a membership's terms; undefined: not sent. */
export interface TermsInput {
  minQuantity?: unknown;
  defaultQuantity?: unknown;
  maxQuantity?: unknown;
  includedQuantity?: unknown;
  refreshCount?: unknown;
  refreshUnit?: unknown;
  rolloverEnabled?: unknown;
  rolloverExpiryPeriods?: unknown;
  rolloverMax?: unknown;
  unitLimit?: unknown;
}

const BAND_FIELDS = ['minQuantity', 'defaultQuantity', 'maxQuantity'] as const;
const ALLOWANCE_FIELDS = [
  'includedQuantity',
  'refreshCount',
  'refreshUnit',
  'rolloverEnabled',
  'rolloverExpiryPeriods',
  'rolloverMax',
  'unitLimit',
] as const;

const PARAM: Record<keyof MembershipTerms, string> = {
  minQuantity: 'min_quantity',
  defaultQuantity: 'default_quantity',
  maxQuantity: 'max_quantity',
  includedQuantity: 'included_quantity',
  refreshCount: 'refresh_count',
  refreshUnit: 'refresh_unit',
  rolloverEnabled: 'rollover_enabled',
  rolloverExpiryPeriods: 'rollover_expiry_periods',
  rolloverMax: 'rollover_max',
  unitLimit: 'unit_limit',
};

/** REFRESHING for a calendar or billing-cycle unit; POOL for one pool per period or granted once; null without an allowance. */
export function allowanceKind(terms: Allowance): AllowanceKind | null {
  if (terms.includedQuantity === null) return null;
  return terms.refreshUnit === null || terms.refreshUnit === 'never' ? 'POOL' : 'REFRESHING';
}

class Collector {
  readonly errors: FieldError[] = [];
  add(field: keyof MembershipTerms, code: 'OUT_OF_RANGE' | 'MUTUALLY_EXCLUSIVE' | 'INVALID_VALUE', message: string): void {
    this.errors.push({ param: PARAM[field], code, message });
  }
}

function integer(
  value: unknown,
  field: keyof MembershipTerms,
  min: number,
  max: number,
  errors: Collector,
): number | null | undefined {
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    errors.add(field, 'INVALID_VALUE', `${PARAM[field]} must be an integer.`);
    return undefined;
  }
  if (value < min || value > max) {
    errors.add(field, 'OUT_OF_RANGE', `${PARAM[field]} must be between ${min} and ${max}.`);
    return undefined;
  }
  return value;
}

function decimal(value: unknown, field: keyof MembershipTerms, errors: Collector): string | null | undefined {
  if (value === undefined || value === null) return value as null | undefined;
  try {
    parseDecimal(value, PARAM[field], { allowNegative: false });
    return value as string;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    errors.add(field, 'INVALID_VALUE', error.message);
    return undefined;
  }
}

/** Each field's format, on its own (400): what a body may hold whatever it is merged with. */
function parseFields(input: TermsInput, errors: Collector): Partial<Record<keyof MembershipTerms, unknown>> {
  const unit = input.refreshUnit;
  if (unit !== undefined && unit !== null && !(REFRESH_UNITS as readonly unknown[]).includes(unit)) {
    errors.add('refreshUnit', 'INVALID_VALUE', `refresh_unit must be one of ${REFRESH_UNITS.join(', ')}.`);
  }
  if (input.rolloverEnabled !== undefined && input.rolloverEnabled !== null && typeof input.rolloverEnabled !== 'boolean') {
    errors.add('rolloverEnabled', 'INVALID_VALUE', 'rollover_enabled must be a boolean.');
  }
  return {
    minQuantity: integer(input.minQuantity, 'minQuantity', 0, 1_000_000_000, errors),
    defaultQuantity: integer(input.defaultQuantity, 'defaultQuantity', 0, 1_000_000_000, errors),
    maxQuantity: integer(input.maxQuantity, 'maxQuantity', 1, 1_000_000_000, errors),
    includedQuantity: decimal(input.includedQuantity, 'includedQuantity', errors),
    refreshCount: integer(input.refreshCount, 'refreshCount', 1, 1000, errors),
    refreshUnit: unit,
    rolloverEnabled: input.rolloverEnabled,
    rolloverExpiryPeriods: integer(input.rolloverExpiryPeriods, 'rolloverExpiryPeriods', 1, 1_000_000, errors),
    rolloverMax: decimal(input.rolloverMax, 'rolloverMax', errors),
    unitLimit: decimal(input.unitLimit, 'unitLimit', errors),
  };
}

/** Model §5's rules over a whole set of terms; `onAdd`: `never` is refused and unit_limit caps a POOL. */
export function termsViolations(terms: MembershipTerms, onAdd: boolean): FieldError[] {
  const errors = new Collector();
  const { minQuantity, defaultQuantity, maxQuantity } = terms;
  if (defaultQuantity < minQuantity)
    errors.add('defaultQuantity', 'OUT_OF_RANGE', 'default_quantity must be at least min_quantity.');
  if (maxQuantity !== null && maxQuantity < minQuantity)
    errors.add('maxQuantity', 'OUT_OF_RANGE', 'max_quantity must be at least min_quantity.');
  if (maxQuantity !== null && maxQuantity < defaultQuantity)
    errors.add('maxQuantity', 'OUT_OF_RANGE', 'max_quantity must be at least default_quantity.');
  const { includedQuantity, refreshCount, refreshUnit, rolloverEnabled, rolloverExpiryPeriods, rolloverMax, unitLimit } = terms;
  if (onAdd && refreshUnit === 'never') {
    errors.add('refreshUnit', 'INVALID_VALUE', 'refresh_unit never (granted once) is set by an update, not on add.');
  }
  if (refreshCount !== null && refreshUnit === null)
    errors.add('refreshCount', 'MUTUALLY_EXCLUSIVE', 'refresh_count needs a refresh_unit.');
  if (refreshCount !== null && refreshUnit === 'never')
    errors.add('refreshCount', 'MUTUALLY_EXCLUSIVE', 'refresh_count does not apply to never.');
  if (includedQuantity === null) {
    for (const field of ['refreshUnit', 'rolloverEnabled', 'unitLimit'] as const) {
      if (field === 'rolloverEnabled' ? rolloverEnabled : terms[field] !== null) {
        errors.add(field, 'MUTUALLY_EXCLUSIVE', `${PARAM[field]} needs an included_quantity.`);
      }
    }
  }
  if (!rolloverEnabled) {
    if (rolloverExpiryPeriods !== null)
      errors.add('rolloverExpiryPeriods', 'MUTUALLY_EXCLUSIVE', 'rollover_expiry_periods needs rollover_enabled.');
    if (rolloverMax !== null) errors.add('rolloverMax', 'MUTUALLY_EXCLUSIVE', 'rollover_max needs rollover_enabled.');
  } else if (refreshUnit === 'never') {
    errors.add('rolloverEnabled', 'MUTUALLY_EXCLUSIVE', 'An allowance granted once cannot roll over.');
  }
  if (unitLimit !== null) {
    if (new Big(unitLimit).lte(0)) errors.add('unitLimit', 'OUT_OF_RANGE', 'unit_limit must be greater than zero.');
    const pool = refreshUnit === null;
    if (onAdd ? !pool : refreshUnit !== 'never' && !pool) {
      errors.add(
        'unitLimit',
        'MUTUALLY_EXCLUSIVE',
        'unit_limit applies to a POOL (no refresh unit) or to an allowance granted once.',
      );
    }
    if (includedQuantity !== null && new Big(unitLimit).lt(includedQuantity)) {
      errors.add('unitLimit', 'OUT_OF_RANGE', 'unit_limit must be at least included_quantity.');
    }
  }
  return errors.errors;
}

function validationError(errors: FieldError[]): DomainError {
  return SharedErrors.VALIDATION_ERROR.create(errors[0].message, { param: errors[0].param, errors });
}

/** The terms of a new membership: omitted fields take their defaults; anything inconsistent is 400. */
export function termsForAdd(input: TermsInput): MembershipTerms {
  const errors = new Collector();
  const fields = parseFields(input, errors);
  if (errors.errors.length) throw validationError(errors.errors);
  const refreshUnit = (fields.refreshUnit as RefreshUnit | null | undefined) ?? null;
  const terms: MembershipTerms = {
    minQuantity: (fields.minQuantity as number | null | undefined) ?? 1,
    defaultQuantity: (fields.defaultQuantity as number | null | undefined) ?? 1,
    maxQuantity: (fields.maxQuantity as number | null | undefined) ?? null,
    includedQuantity: (fields.includedQuantity as string | null | undefined) ?? null,
    refreshCount:
      (fields.refreshCount as number | null | undefined) ?? (refreshUnit !== null && refreshUnit !== 'never' ? 1 : null),
    refreshUnit,
    rolloverEnabled: (fields.rolloverEnabled as boolean | null | undefined) ?? false,
    rolloverExpiryPeriods: (fields.rolloverExpiryPeriods as number | null | undefined) ?? null,
    rolloverMax: (fields.rolloverMax as string | null | undefined) ?? null,
    unitLimit: (fields.unitLimit as string | null | undefined) ?? null,
  };
  const violations = termsViolations(terms, true);
  if (violations.length) throw validationError(violations);
  return terms;
}

/**
 * An update: per group, `true` rewrites the whole group from the body (omitted members at their
 * add defaults), `false` keeps the stored group (the body's fields still validated for format),
 * omitted merge-patches the supplied fields. A body inconsistent on its own is 400; a consistent
 * body whose merge with the stored terms is not is 422 INVALID_MEMBERSHIP.
 */
export function termsForUpdate(
  stored: MembershipTerms,
  input: TermsInput,
  groups: { band?: boolean; allowance?: boolean },
): MembershipTerms {
  const errors = new Collector();
  const fields = parseFields(input, errors);
  if (errors.errors.length) throw validationError(errors.errors);
  const sent = <K extends keyof MembershipTerms>(field: K) => input[field as keyof TermsInput] !== undefined;
  const value = <K extends keyof MembershipTerms>(field: K, fallback: MembershipTerms[K]) =>
    sent(field) ? ((fields[field] ?? null) as MembershipTerms[K]) : fallback;
  const group = <K extends keyof MembershipTerms>(
    names: readonly K[],
    set: boolean | undefined,
    defaults: Pick<MembershipTerms, K>,
  ) =>
    Object.fromEntries(
      names.map((field) => [field, set === false ? stored[field] : value(field, set === true ? defaults[field] : stored[field])]),
    ) as Pick<MembershipTerms, K>;
  const band = group(BAND_FIELDS, groups.band, DEFAULT_BAND);
  const allowance = group(ALLOWANCE_FIELDS, groups.allowance, NO_ALLOWANCE);
  // A unit with no count: the count defaults to 1 (never takes none).
  if (
    allowance.refreshUnit !== null &&
    allowance.refreshUnit !== 'never' &&
    allowance.refreshCount === null &&
    !sent('refreshCount')
  ) {
    allowance.refreshCount = 1;
  }
  if (allowance.refreshUnit === 'never' && !sent('refreshCount')) allowance.refreshCount = null;
  if (allowance.refreshUnit === null && !sent('refreshCount') && groups.allowance !== false) allowance.refreshCount = null;
  if (bodyIsSelfInconsistent(fields, input)) {
    const own = termsViolations({ ...DEFAULT_BAND, ...NO_ALLOWANCE, ...onlySent(fields, input) }, false);
    throw validationError(
      own.length ? own : [{ param: 'body', code: 'INVALID_VALUE', message: 'The terms contradict each other.' }],
    );
  }
  const merged: MembershipTerms = { ...band, ...allowance };
  const violations = termsViolations(merged, false);
  if (violations.length) {
    throw CatalogErrors.INVALID_MEMBERSHIP.create(violations[0].message, {
      param: violations[0].param,
      errors: violations,
      details: { rule: violations[0].code },
    });
  }
  return merged;
}

function onlySent(fields: Partial<Record<keyof MembershipTerms, unknown>>, input: TermsInput): Partial<MembershipTerms> {
  return Object.fromEntries(
    Object.keys(input)
      .filter((field) => input[field as keyof TermsInput] !== undefined)
      .map((field) => [field, fields[field as keyof MembershipTerms] ?? null]),
  ) as Partial<MembershipTerms>;
}

/** Contradictions visible in the body alone (count without unit, count with never, rollover fields without rollover). */
function bodyIsSelfInconsistent(fields: Partial<Record<keyof MembershipTerms, unknown>>, input: TermsInput): boolean {
  const has = (field: keyof TermsInput) => input[field] !== undefined && input[field] !== null;
  if (has('refreshCount') && input.refreshUnit === null) return true;
  if (has('refreshCount') && fields.refreshUnit === 'never') return true;
  if (input.rolloverEnabled === false && (has('rolloverExpiryPeriods') || has('rolloverMax'))) return true;
  if (input.includedQuantity === null && (has('refreshUnit') || input.rolloverEnabled === true || has('unitLimit'))) return true;
  const min = fields.minQuantity as number | null | undefined;
  const def = fields.defaultQuantity as number | null | undefined;
  const max = fields.maxQuantity as number | null | undefined;
  if (typeof min === 'number' && typeof def === 'number' && def < min) return true;
  if (typeof max === 'number' && ((typeof min === 'number' && max < min) || (typeof def === 'number' && max < def))) return true;
  if (has('unitLimit') && has('includedQuantity') && new Big(input.unitLimit as string).lt(input.includedQuantity as string))
    return true;
  return false;
}
