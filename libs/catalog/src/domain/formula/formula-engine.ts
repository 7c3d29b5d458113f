import Big from 'big.js';
import { FormulaNode, formulaReferences } from './ast';
import { FormulaClosure, ResolvedFormulaKey, suggestSubtraction } from './closure';
import { evaluateNode, FormulaExplainNode } from './evaluator';
import { bindingValue, finishResult, renderDecimal } from './formula-decimal';
import { formulaUnknownKey } from './formula-errors';
import { FormulaScope } from './formula-scope';
import { parseFormula } from './parser';

export interface FormulaEvaluation<M = unknown> {
  /** Rounded half-up to 12 fraction digits, plain: "12.5", "0", "-3". */
  readonly value: string;
  readonly ast: FormulaNode;
  /** Present when asked for: every node of the expression with its exact value. */
  readonly explain?: FormulaExplainNode;
  /** Every key the evaluation resolved, transitively, in order of first appearance. */
  readonly references: ResolvedFormulaKey<M>[];
}

/**
 * Evaluates an expression against a scope (the explain / what-if route, a product's
 * `unit_price`). Throws the FORMULA_* errors.
 */
export function evaluateExpression<M = unknown>(
  expression: string | FormulaNode,
  scope: FormulaScope<M>,
  options: { explain?: boolean } = {},
): FormulaEvaluation<M> {
  const ast = typeof expression === 'string' ? parseFormula(expression) : expression;
  const closure = new FormulaClosure(scope, { expression: ast });
  const root = closure.evaluateRoot(options.explain === true);
  const evaluation = { value: renderDecimal(root.value), ast, references: closure.resolvedKeys() };
  return root.explain ? { ...evaluation, explain: root.explain } : evaluation;
}

export interface KeyExpressionCheck<M = unknown> {
  /** The expression's value now, rounded to 12 fraction digits. */
  readonly value: string;
  readonly ast: FormulaNode;
  /** The keys it references directly, in order of first appearance: what a revision stores. */
  readonly references: string[];
  /** Every key of its closure, itself first. */
  readonly closure: ResolvedFormulaKey<M>[];
}

/**
 * The check run when an expression is saved for `key`: it parses (400 FORMULA_SYNTAX_ERROR),
 * resolves in `scope` with `key` standing for the new expression (422 FORMULA_UNKNOWN_KEY),
 * stays acyclic (422 FORMULA_CYCLE, the path starting at `key` when the new expression closes
 * it) and evaluates (422 FORMULA_EVALUATION_ERROR). `id` must be the key's identity in the
 * scope when the scope gives ids.
 */
export function checkKeyExpression<M = unknown>(
  key: string,
  expression: string,
  scope: FormulaScope<M>,
  options: { id?: string; metadata?: M } = {},
): KeyExpressionCheck<M> {
  const ast = parseFormula(expression);
  const binding = { kind: 'expression' as const, expression, ast, id: options.id, metadata: options.metadata };
  const closure = new FormulaClosure(scope, { keys: [key] }, { key, binding });
  return {
    value: renderDecimal(closure.valueOf(key)),
    ast,
    references: formulaReferences(ast),
    closure: closure.resolvedKeys(),
  };
}

export interface FormulaMaterialization<M = unknown> {
  /** The expression's value (a unit price), or null when only keys were asked for. */
  readonly value: string | null;
  /** Every key resolved: the given ones and their closure, each once. */
  readonly keys: ResolvedFormulaKey<M>[];
}

/**
 * Materialization (catalog model §3.3): a product's `price_expression` and the keys of its
 * content, closed transitively and evaluated in dependency order, each key once.
 */
export function materializeFormulas<M = unknown>(
  roots: { expression?: string | FormulaNode | null; keys?: readonly string[] },
  scope: FormulaScope<M>,
): FormulaMaterialization<M> {
  const ast = typeof roots.expression === 'string' ? parseFormula(roots.expression) : (roots.expression ?? undefined);
  const closure = new FormulaClosure(scope, { expression: ast, keys: roots.keys });
  return {
    value: ast ? renderDecimal(closure.evaluateRoot(false).value) : null,
    keys: closure.resolvedKeys(),
  };
}

/**
 * The hot path for benchmarks and bulk previews: a parsed expression against plain values
 * (no expressions, so no closure to build). Same arithmetic, rounding and errors.
 */
export function evaluateWithValues(
  ast: FormulaNode,
  values: ReadonlyMap<string, string | Big> | Readonly<Record<string, string>>,
): string {
  const get = (key: string): string | Big | undefined =>
    values instanceof Map
      ? values.get(key)
      : Object.prototype.hasOwnProperty.call(values, key)
        ? (values as Record<string, string>)[key]
        : undefined;
  const resolved = new Map<string, Big>();
  const unknown: string[] = [];
  for (const key of formulaReferences(ast)) {
    const value = get(key);
    if (value === undefined) unknown.push(key);
    else resolved.set(key, bindingValue(value, key));
  }
  if (unknown.length > 0) {
    const suggestions: Record<string, string> = {};
    for (const key of unknown) {
      const suggestion = suggestSubtraction(key, (part) => get(part) !== undefined);
      if (suggestion) suggestions[key] = suggestion;
    }
    throw formulaUnknownKey(unknown, suggestions);
  }
  return renderDecimal(finishResult(evaluateNode(ast, (key) => resolved.get(key)!)));
}
