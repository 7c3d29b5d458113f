/**
 * The catalog's formula language (catalog model §3.6–3.7): pure domain code, no Nest, no database.
 *
 * - `parseFormula(text)` → AST (400 FORMULA_SYNTAX_ERROR, `details.position`); `printFormula(ast)`
 *   → canonical text; `formulaReferences(ast)` → the keys a revision stores.
 * - The caller resolves keys through a `FormulaScope`: per key a value or an expression, with
 *   opaque `metadata` (cost id, scope, revision) that comes back in the results.
 * - `checkKeyExpression(key, expression, scope)`: the check of a cost expression save.
 * - `materializeFormulas({ expression, keys }, scope)`: a product version going live.
 * - `evaluateExpression(expression, scope, { explain })`: evaluate / explain / what-if
 *   (`withBinding` overrides a key).
 * - `evaluateWithValues(ast, values)`: a parsed formula against plain values (the hot path).
 *
 * Refusals: FORMULA_SYNTAX_ERROR (400, kind invalid_request); FORMULA_UNKNOWN_KEY, FORMULA_CYCLE,
 * FORMULA_EVALUATION_ERROR (422, kind rule_violation).
 */
export * from './ast';
export { FormulaClosure, type ResolvedFormulaKey, suggestSubtraction } from './closure';
export { findCycle, dependencyOrder, longestPath } from './dependency-graph';
export type { FormulaExplainNode } from './evaluator';
export * from './formula-engine';
export * from './formula-errors';
export * from './formula-scope';
export * from './limits';
export { parseFormula } from './parser';
export { printFormula, printKey } from './printer';
