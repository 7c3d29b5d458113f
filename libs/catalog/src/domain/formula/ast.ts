/**
 * The parsed form of a formula: a discriminated union on `type`. Nodes carry no source
 * positions, so that `parse(print(ast))` equals `ast` whatever spacing the author used.
 */
export type FormulaNode = NumberNode | RefNode | NegateNode | BinaryNode | ExtremumNode | RoundingNode;

/** A literal as written: `digit+ ("." digit+)?`, leading and trailing zeros kept. */
export interface NumberNode {
  readonly type: 'number';
  readonly text: string;
}

/** A reference to a key, bare (`unit_rate`) or braced (`{unit-rate}`); the printer decides which. */
export interface RefNode {
  readonly type: 'ref';
  readonly key: string;
}

export interface NegateNode {
  readonly type: 'negate';
  readonly operand: FormulaNode;
}

export type BinaryOperator = '+' | '-' | '*' | '/';

export interface BinaryNode {
  readonly type: 'binary';
  readonly op: BinaryOperator;
  readonly left: FormulaNode;
  readonly right: FormulaNode;
}

/** `min(a, b, …)` / `max(a, b, …)`: 2 to 16 arguments. */
export interface ExtremumNode {
  readonly type: 'extremum';
  readonly fn: 'min' | 'max';
  readonly args: readonly FormulaNode[];
}

/** `round(x)`, `ceil(x, 2)`: `places` is the integer literal as given, or null when omitted (0). */
export interface RoundingNode {
  readonly type: 'rounding';
  readonly fn: 'round' | 'ceil' | 'floor';
  readonly arg: FormulaNode;
  readonly places: number | null;
}

export type FunctionName = ExtremumNode['fn'] | RoundingNode['fn'];

export const FUNCTION_NAMES: readonly FunctionName[] = ['min', 'max', 'round', 'ceil', 'floor'];

export function isFunctionName(text: string): text is FunctionName {
  return (FUNCTION_NAMES as readonly string[]).includes(text);
}

/** The node's children, left to right. */
export function childrenOf(node: FormulaNode): readonly FormulaNode[] {
  switch (node.type) {
    case 'number':
    case 'ref':
      return [];
    case 'negate':
      return [node.operand];
    case 'binary':
      return [node.left, node.right];
    case 'extremum':
      return node.args;
    case 'rounding':
      return [node.arg];
  }
}

export function countNodes(node: FormulaNode): number {
  let count = 1;
  for (const child of childrenOf(node)) count += countNodes(child);
  return count;
}

/** The distinct keys a formula references, in order of first appearance (left to right). */
export function formulaReferences(node: FormulaNode): string[] {
  const keys = new Set<string>();
  const walk = (current: FormulaNode): void => {
    if (current.type === 'ref') keys.add(current.key);
    for (const child of childrenOf(current)) walk(child);
  };
  walk(node);
  return [...keys];
}
