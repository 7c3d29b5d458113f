import Big from 'big.js';
import { BinaryOperator, FormulaNode } from './ast';
import { divisionByZero } from './formula-errors';
import { ceil, floor, literal, renderDecimal, roundHalfAwayFromZero, ZERO } from './formula-decimal';
import { printFormula } from './printer';

/** The value of a referenced key; the caller has checked every key resolves. */
export type KeyValues = (key: string) => Big;

/**
 * The explain tree: the AST with each node's exact value (before the result's rounding to
 * 12 digits) and its canonical text.
 */
export type FormulaExplainNode =
  | { type: 'number'; expression: string; value: string; text: string }
  | { type: 'ref'; expression: string; value: string; key: string }
  | { type: 'negate'; expression: string; value: string; operand: FormulaExplainNode }
  | { type: 'binary'; expression: string; value: string; op: BinaryOperator; left: FormulaExplainNode; right: FormulaExplainNode }
  | { type: 'extremum'; expression: string; value: string; fn: 'min' | 'max'; args: FormulaExplainNode[] }
  | {
      type: 'rounding';
      expression: string;
      value: string;
      fn: 'round' | 'ceil' | 'floor';
      places: number;
      arg: FormulaExplainNode;
    };

/**
 * Evaluates one expression exactly: + - * exact, / to 20 fraction digits half-up. `owner` is
 * the key whose expression this is (for error details). No rounding of the result here.
 */
export function evaluateNode(node: FormulaNode, values: KeyValues, owner?: string): Big {
  switch (node.type) {
    case 'number':
      return literal(node.text);
    case 'ref':
      return values(node.key);
    case 'negate':
      return evaluateNode(node.operand, values, owner).neg();
    case 'binary':
      return applyOperator(node, evaluateNode(node.left, values, owner), evaluateNode(node.right, values, owner), owner);
    case 'extremum':
      return pickExtremum(
        node.fn,
        node.args.map((arg) => evaluateNode(arg, values, owner)),
      );
    case 'rounding':
      return applyRounding(node.fn, evaluateNode(node.arg, values, owner), node.places ?? 0);
  }
}

/** Like `evaluateNode`, keeping every node's value. */
export function explainNode(node: FormulaNode, values: KeyValues, owner?: string): { value: Big; explain: FormulaExplainNode } {
  const expression = printFormula(node);
  switch (node.type) {
    case 'number': {
      const value = literal(node.text);
      return { value, explain: { type: 'number', expression, value: renderDecimal(value), text: node.text } };
    }
    case 'ref': {
      const value = values(node.key);
      return { value, explain: { type: 'ref', expression, value: renderDecimal(value), key: node.key } };
    }
    case 'negate': {
      const operand = explainNode(node.operand, values, owner);
      const value = operand.value.neg();
      return { value, explain: { type: 'negate', expression, value: renderDecimal(value), operand: operand.explain } };
    }
    case 'binary': {
      const left = explainNode(node.left, values, owner);
      const right = explainNode(node.right, values, owner);
      const value = applyOperator(node, left.value, right.value, owner);
      return {
        value,
        explain: {
          type: 'binary',
          expression,
          value: renderDecimal(value),
          op: node.op,
          left: left.explain,
          right: right.explain,
        },
      };
    }
    case 'extremum': {
      const args = node.args.map((arg) => explainNode(arg, values, owner));
      const value = pickExtremum(
        node.fn,
        args.map((arg) => arg.value),
      );
      return {
        value,
        explain: { type: 'extremum', expression, value: renderDecimal(value), fn: node.fn, args: args.map((arg) => arg.explain) },
      };
    }
    case 'rounding': {
      const arg = explainNode(node.arg, values, owner);
      const places = node.places ?? 0;
      const value = applyRounding(node.fn, arg.value, places);
      return {
        value,
        explain: { type: 'rounding', expression, value: renderDecimal(value), fn: node.fn, places, arg: arg.explain },
      };
    }
  }
}

function applyOperator(node: FormulaNode & { type: 'binary' }, left: Big, right: Big, owner: string | undefined): Big {
  switch (node.op) {
    case '+':
      return left.plus(right);
    case '-':
      return left.minus(right);
    case '*':
      return left.times(right);
    case '/':
      if (right.eq(ZERO)) throw divisionByZero(printFormula(node), owner);
      return left.div(right);
  }
}

function pickExtremum(fn: 'min' | 'max', values: Big[]): Big {
  let best = values[0];
  for (const value of values.slice(1)) {
    if (fn === 'min' ? value.lt(best) : value.gt(best)) best = value;
  }
  return best;
}

function applyRounding(fn: 'round' | 'ceil' | 'floor', value: Big, places: number): Big {
  switch (fn) {
    case 'round':
      return roundHalfAwayFromZero(value, places);
    case 'ceil':
      return ceil(value, places);
    case 'floor':
      return floor(value, places);
  }
}
