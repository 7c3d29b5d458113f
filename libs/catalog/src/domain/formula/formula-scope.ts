import Big from 'big.js';
import { FormulaNode } from './ast';

/**
 * What a key stands for, as the caller (costs, products) resolves it. `metadata` (cost id,
 * scope, revision …) is passed through to the results untouched.
 *
 * `id` is the key's identity in one evaluation (default: the key). Give ids (cost ids) when
 * nested scopes can resolve one key to different costs, e.g. a product's PRODUCT cost `fee`
 * and the ORG cost `fee` seen from an ORG cost's expression: two ids, two values.
 */
export type FormulaBinding<M = unknown> = FormulaValueBinding<M> | FormulaExpressionBinding<M>;

export interface FormulaValueBinding<M = unknown> {
  readonly kind: 'value';
  /** A decimal string (`^-?\d+(\.\d+)?$`) or a Big. */
  readonly value: string | Big;
  readonly id?: string;
  readonly metadata?: M;
}

export interface FormulaExpressionBinding<M = unknown> {
  readonly kind: 'expression';
  readonly expression: string;
  /** The expression already parsed, to skip parsing it again. */
  readonly ast?: FormulaNode;
  /**
   * Where this expression's references resolve (default: the scope it was found in). An ORG
   * cost's expression sees ORG keys only, even when reached from a product's formula.
   */
  readonly scope?: FormulaScope<M>;
  readonly id?: string;
  readonly metadata?: M;
}

/** The keys visible to a formula. `lookup` answers undefined for a key it does not know. */
export interface FormulaScope<M = unknown> {
  lookup(key: string): FormulaBinding<M> | undefined;
}

/** A scope of plain values, for what-if evaluations, tests and benchmarks. */
export function scopeOfValues<M = unknown>(
  values: Readonly<Record<string, string>> | ReadonlyMap<string, string | Big>,
): FormulaScope<M> {
  const map: ReadonlyMap<string, string | Big> = values instanceof Map ? values : new Map(Object.entries(values));
  return {
    lookup: (key) => {
      const value = map.get(key);
      return value === undefined ? undefined : { kind: 'value', value };
    },
  };
}

/** `scope`, with `key` standing for `binding` (a what-if value, or the expression being saved). */
export function withBinding<M>(scope: FormulaScope<M>, key: string, binding: FormulaBinding<M>): FormulaScope<M> {
  return { lookup: (wanted) => (wanted === key ? binding : scope.lookup(wanted)) };
}
