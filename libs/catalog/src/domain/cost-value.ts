import Big from 'big.js';
import { parseDecimal, SharedErrors } from '@app/shared-kernel';

/** A cost's value: a static amount or a formula over other cost keys. */
export type CostValue =
  | { kind: 'amount'; amount: string; expression: null; references: [] }
  | { kind: 'expression'; amount: null; expression: string; references: string[] };

export const COST_KEY_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Display fields: they apply in place and never create a revision. */
export interface CostDisplay {
  description: string | null;
  metadata: Record<string, unknown>;
  translations: Record<string, unknown>;
  requiresContinuousCoverage: boolean;
}

export interface CostDisplayChanges {
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  translations?: Record<string, unknown> | null;
  requiresContinuousCoverage?: boolean | null;
}

/** One immutable row of a cost's history (kind value, retire or restore). */
export interface CostRevision {
  id: string;
  costId: string;
  revisionNo: number;
  kind: 'value' | 'retire' | 'restore';
  value: CostValue | null;
  effectiveAt: Date;
  createdBy: { type: string; id: string | null };
  createdAt: Date;
}

export function assertCostKey(key: unknown): string {
  if (typeof key !== 'string' || !COST_KEY_PATTERN.test(key)) {
    throw SharedErrors.VALIDATION_ERROR.create('key must be 1–64 characters of A–Z, a–z, 0–9, ".", "_" or "-".', {
      param: 'key',
      errors: [{ param: 'key', code: 'INVALID_FORMAT', message: 'Must match ^[A-Za-z0-9._-]{1,64}$.' }],
    });
  }
  return key;
}

/** `^-?\d+(\.\d+)?$`, at most 18 integer and 12 fraction digits; the scale as written is kept. */
export function amountValue(amount: unknown): CostValue {
  parseDecimal(amount, 'amount');
  return { kind: 'amount', amount: amount as string, expression: null, references: [] };
}

export function expressionValue(expression: string, references: string[]): CostValue {
  return { kind: 'expression', amount: null, expression, references };
}

/** Equal values (amounts compared as numbers, "12.50" = "12.5"), so a reverted edit is no edit. */
export function sameValue(a: CostValue, b: CostValue): boolean {
  if (a.kind === 'amount' && b.kind === 'amount') return new Big(a.amount).eq(b.amount);
  return a.kind === b.kind && a.expression === b.expression;
}

export function applyDisplay(display: CostDisplay, changes: CostDisplayChanges): CostDisplay {
  return {
    description:
      changes.description === undefined || changes.description === null ? display.description : changes.description || null,
    metadata: changes.metadata ?? display.metadata,
    translations: changes.translations ?? display.translations,
    requiresContinuousCoverage: changes.requiresContinuousCoverage ?? display.requiresContinuousCoverage,
  };
}

export function hasDisplayChanges(changes: CostDisplayChanges): boolean {
  return Object.values(changes).some((value) => value !== undefined && value !== null);
}
