/** The catalog's formula language (catalog model §3.6–3.7): pure domain code, no Nest, no database. */
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
