import Big from 'big.js';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FormulaNode } from './ast';
import { evaluateExpression, evaluateWithValues } from './formula-engine';
import { formulaAst, thrown } from './formula-test-support';
import { scopeOfValues } from './formula-scope';
import { parseFormula } from './parser';

const value = (text: string, values: Record<string, string> = {}): string => evaluateWithValues(parseFormula(text), values);

function evaluationError(text: string, values: Record<string, string> = {}): Record<string, unknown> {
  const error = thrown(() => value(text, values));
  expect([error.kind, error.code]).toEqual(['rule_violation', 'FORMULA_EVALUATION_ERROR']);
  return error.details!;
}

describe('formula evaluation', () => {
  it.each([
    ['1 + 2 * 3', '7'],
    ['(1 + 2) * 3', '9'],
    ['2 - 3 - 4', '-5'],
    ['24 / 4 / 2', '3'],
    ['0.1 + 0.2', '0.3'],
    ['12.50', '12.5'],
    ['1.000', '1'],
    ['007', '7'],
    ['-3', '-3'],
    ['--3', '3'],
    ['-0', '0'],
    ['0 * -1', '0'],
    ['-2 * -3', '6'],
    ['10 / 4', '2.5'],
    ['1 / 3', '0.333333333333'],
    ['2 / 3', '0.666666666667'],
    ['-2 / 3', '-0.666666666667'],
    // Division keeps 20 digits half-up: 1/7 = 0.14285714285714285714|2…, times 7 is 0.99999999999999999998.
    ['1 / 7 * 7', '1'],
    ['2 / 3 * 3', '2'],
    ['123456789012345678 * 0.000000000001', '123456.789012345678'],
    ['999999999999999999 * 999999999999999999 / 999999999999999999', '999999999999999999'],
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('keeps 20 fraction digits inside, 12 in the result (explain shows the exact steps)', () => {
    const evaluation = evaluateExpression('1 / 3 + a', scopeOfValues({ a: '0' }), { explain: true });
    expect(evaluation.value).toBe('0.333333333333');
    expect(evaluation.explain).toEqual(
      expect.objectContaining({ type: 'binary', op: '+', value: '0.33333333333333333333', expression: '1 / 3 + a' }),
    );
  });

  it.each([
    ['round(2.5)', '3'],
    ['round(-2.5)', '-3'],
    ['round(2.4)', '2'],
    ['round(-2.4)', '-2'],
    ['round(-0.4)', '0'],
    ['round(1.005, 2)', '1.01'],
    ['round(-1.005, 2)', '-1.01'],
    ['round(1.2345, 3)', '1.235'],
    ['round(12.345, 0)', '12'],
    ['round(1 / 3, 12)', '0.333333333333'],
    ['ceil(1.1)', '2'],
    ['ceil(-1.1)', '-1'],
    ['ceil(-1.9)', '-1'],
    ['ceil(-0.5)', '0'],
    ['ceil(2)', '2'],
    ['ceil(1.001, 2)', '1.01'],
    ['ceil(-1.009, 2)', '-1'],
    ['floor(1.9)', '1'],
    ['floor(-1.1)', '-2'],
    ['floor(-0.001)', '-1'],
    ['floor(-1.001, 2)', '-1.01'],
    ['floor(1.009, 2)', '1'],
    ['floor(5)', '5'],
    ['min(3, -1, 2)', '-1'],
    ['max(3, -1, 2)', '3'],
    ['min(-0.5, -0.50)', '-0.5'],
    ['max(1, 1.0000000000001)', '1'],
    ['min(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0.5)', '0.5'],
  ])('%s = %s', (text, expected) => {
    expect(value(text)).toBe(expected);
  });

  it('rounds a result half-up (away from zero) to 12 fraction digits', () => {
    expect(value('0.0000000000005')).toBe('0.000000000001');
    expect(value('-0.0000000000005')).toBe('-0.000000000001');
    expect(value('0.00000000000049999')).toBe('0');
    expect(value('999999999999999999.9999999999994')).toBe('999999999999999999.999999999999');
  });

  it('refuses a result of magnitude 10^18 or more, after rounding', () => {
    expect(evaluationError('999999999999999999 + 1')).toEqual({ reason: 'out_of_range', limit: '1000000000000000000' });
    expect(evaluationError('-999999999999999999 - 1').reason).toBe('out_of_range');
    expect(evaluationError('999999999999999999.9999999999995').reason).toBe('out_of_range');
    expect(evaluationError('a * a', { a: '1000000000' }).reason).toBe('out_of_range');
  });

  it('refuses a division by zero, naming the division', () => {
    expect(evaluationError('1 / (a - a)', { a: '5' })).toEqual({ reason: 'division_by_zero', at: '1 / (a - a)' });
    expect(evaluationError('0 / 0').reason).toBe('division_by_zero');
    expect(evaluationError('min(1, 2 / 0.000)')).toEqual({ reason: 'division_by_zero', at: '2 / 0.000' });
  });

  it('refuses a value that is not a decimal string', () => {
    for (const bad of ['1e5', ' 1', '1.', '', 'NaN', '0x10', '+1']) {
      expect(evaluationError('a + 1', { a: bad })).toEqual({ reason: 'invalid_value', key: 'a' });
    }
  });

  it('refuses unknown keys, sorted, and suggests spaces when a braced key joins two known ones', () => {
    const error = thrown(() => value('{fee-tax} + zeta + alpha + {x-y}', { fee: '1', tax: '2', x: '3' }));
    expect([error.kind, error.code]).toEqual(['rule_violation', 'FORMULA_UNKNOWN_KEY']);
    expect(error.details).toEqual({ keys: ['alpha', 'fee-tax', 'x-y', 'zeta'], suggestions: { 'fee-tax': 'fee - tax' } });
    expect(error.message).toContain("'fee-tax' is not a key; to subtract, write fee - tax.");
  });

  it('accepts Big values and never configures the global Big', () => {
    const before = [Big.DP, Big.RM, Big.NE, Big.PE];
    expect(evaluateWithValues(parseFormula('a / 3'), new Map([['a', new Big('1')]]))).toBe('0.333333333333');
    expect([Big.DP, Big.RM, Big.NE, Big.PE]).toEqual(before);
  });

  it('uses no JS number, eval or Function on values', () => {
    for (const file of ['evaluator.ts', 'formula-decimal.ts', 'closure.ts', 'formula-engine.ts']) {
      const source = readFileSync(join(__dirname, file), 'utf8');
      expect(source).not.toMatch(/\bparseFloat\(|\bparseInt\(|\bNumber\(|\beval\(|\bFunction\(|\.toNumber\(|Math\./);
    }
  });
});

/**
 * An independent reference: its own big.js constructor, rounding by truncation and
 * correction rather than big.js rounding modes.
 */
const R = Big();
R.DP = 20;
R.RM = Big.roundHalfUp;

class ReferenceRefusal extends Error {}

function truncate(x: Big): Big {
  return x.round(0, Big.roundDown);
}

function scaleOf(places: number): Big {
  return new R(10).pow(places);
}

function floorTo(x: Big, places: number): Big {
  const scaled = x.times(scaleOf(places));
  let whole = truncate(scaled);
  if (scaled.lt(whole)) whole = whole.minus(1);
  return whole.div(scaleOf(places));
}

function ceilTo(x: Big, places: number): Big {
  return floorTo(x.neg(), places).neg();
}

function roundAwayTo(x: Big, places: number): Big {
  const magnitude = floorTo(x.abs().plus(new R(5).div(scaleOf(places + 1))), places);
  return x.lt(0) ? magnitude.neg() : magnitude;
}

function reference(node: FormulaNode, values: Record<string, string>): Big {
  switch (node.type) {
    case 'number':
      return new R(node.text);
    case 'ref':
      return new R(values[node.key]);
    case 'negate':
      return reference(node.operand, values).times(-1);
    case 'binary': {
      const left = reference(node.left, values);
      const right = reference(node.right, values);
      if (node.op === '+') return left.plus(right);
      if (node.op === '-') return left.minus(right);
      if (node.op === '*') return left.times(right);
      if (right.eq(0)) throw new ReferenceRefusal('division_by_zero');
      return left.div(right);
    }
    case 'extremum': {
      const sorted = node.args.map((arg) => reference(arg, values)).sort((a, b) => a.cmp(b));
      return node.fn === 'min' ? sorted[0] : sorted[sorted.length - 1];
    }
    case 'rounding': {
      const x = reference(node.arg, values);
      const places = node.places ?? 0;
      return node.fn === 'round' ? roundAwayTo(x, places) : node.fn === 'ceil' ? ceilTo(x, places) : floorTo(x, places);
    }
  }
}

function referenceResult(ast: FormulaNode, values: Record<string, string>): string {
  let result: Big;
  try {
    result = roundAwayTo(reference(ast, values), 12);
  } catch (error) {
    if (error instanceof ReferenceRefusal) return error.message;
    throw error;
  }
  if (result.abs().gte(new R('1000000000000000000'))) return 'out_of_range';
  return result.eq(0) ? '0' : result.toFixed();
}

function engineResult(ast: FormulaNode, values: Record<string, string>): string {
  try {
    return evaluateWithValues(ast, values);
  } catch (error) {
    return String((error as { details?: { reason?: unknown } }).details?.reason);
  }
}

describe('formula evaluation against an independent big.js reference', () => {
  const decimal = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom('0', '0.0', '-0') },
    { weight: 6, arbitrary: fc.stringMatching(/^-?\d{1,4}(\.\d{1,6})?$/) },
    { weight: 1, arbitrary: fc.stringMatching(/^-?\d{10,18}(\.\d{1,12})?$/) },
  );
  const values = fc.record({ a: decimal, b: decimal, c: decimal, d: decimal });

  it('agrees on random formulas over random decimals, refusals included', () => {
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(formulaAst(fc.constantFrom('a', 'b', 'c', 'd')), values, (ast, given) => {
        const expected = referenceResult(ast, given);
        const kind = /^-?\d/.test(expected) ? 'value' : expected;
        outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
        expect(engineResult(ast, given)).toBe(expected);
      }),
      { numRuns: 500 },
    );
    // The run exercised values and both refusals, not only one of them.
    expect(outcomes.get('value')).toBeGreaterThan(100);
    expect(outcomes.get('division_by_zero')).toBeGreaterThan(0);
    expect(outcomes.get('out_of_range')).toBeGreaterThan(0);
  });

  it('agrees on the rounding functions over random decimals and places', () => {
    const rounding = fc.record({
      fn: fc.constantFrom('round', 'ceil', 'floor') as fc.Arbitrary<'round' | 'ceil' | 'floor'>,
      x: fc.stringMatching(/^-?\d{1,6}(\.\d{1,14})?$/),
      places: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
    });
    fc.assert(
      fc.property(rounding, ({ fn, x, places }) => {
        const ast: FormulaNode = { type: 'rounding', fn, arg: { type: 'ref', key: 'x' }, places };
        expect(engineResult(ast, { x })).toBe(referenceResult(ast, { x }));
      }),
      { numRuns: 500 },
    );
  });
});
