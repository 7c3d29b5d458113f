import { FormulaNode, isFunctionName } from './ast';
import { FORMULA_LIMITS } from './limits';

const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** Binding strength: sums < products < negation < atoms (numbers, keys, calls). */
function precedence(node: FormulaNode): number {
  switch (node.type) {
    case 'binary':
      return node.op === '+' || node.op === '-' ? 1 : 2;
    case 'negate':
      return 3;
    default:
      return 4;
  }
}

/**
 * The canonical text of a formula: single spaces around binary operators and after commas,
 * the fewest parentheses that keep the tree (operators are left-associative, so a right operand
 * of the same strength keeps its parentheses), braces only on keys that cannot be bare, and
 * numbers as written. `parseFormula(printFormula(ast))` equals `ast`.
 */
export function printFormula(node: FormulaNode): string {
  switch (node.type) {
    case 'number':
      return node.text;
    case 'ref':
      return printKey(node.key);
    case 'negate':
      return `-${wrap(node.operand, precedence(node.operand) < 3)}`;
    case 'binary': {
      const strength = precedence(node);
      const left = wrap(node.left, precedence(node.left) < strength);
      const right = wrap(node.right, precedence(node.right) <= strength);
      return `${left} ${node.op} ${right}`;
    }
    case 'extremum':
      return `${node.fn}(${node.args.map(printFormula).join(', ')})`;
    case 'rounding':
      return `${node.fn}(${printFormula(node.arg)}${node.places === null ? '' : `, ${node.places}`})`;
  }
}

/** A key as a reference: bare when the grammar reads it back as that key, else braced. */
export function printKey(key: string): string {
  const bare = BARE_NAME.test(key) && key.length <= FORMULA_LIMITS.maxKeyLength && !isFunctionName(key);
  return bare ? key : `{${key}}`;
}

function wrap(node: FormulaNode, parenthesise: boolean): string {
  const text = printFormula(node);
  return parenthesise ? `(${text})` : text;
}
