import { DomainError } from '@app/shared-kernel';
import { checkKeyExpression, evaluateExpression, materializeFormulas } from './formula-engine';
import { FormulaBinding, FormulaScope, withBinding } from './formula-scope';
import { thrown } from './formula-test-support';
import { parseFormula } from './parser';

interface Meta {
  cost_id: string;
  scope: 'ORG' | 'PRODUCT';
  revision: number;
}

/** A flat scope: a string starting with '=' is an expression, anything else a value. */
function scope(entries: Record<string, string>): FormulaScope<Meta> {
  return {
    lookup: (key) => {
      if (!Object.prototype.hasOwnProperty.call(entries, key)) return undefined;
      const text = entries[key];
      const metadata: Meta = { cost_id: `cost-${key}`, scope: 'ORG', revision: 1 };
      return text.startsWith('=')
        ? { kind: 'expression', expression: text.slice(1), metadata }
        : { kind: 'value', value: text, metadata };
    },
  };
}

function refusal(action: () => unknown): { code: string; kind: string; details: Record<string, unknown> | undefined } {
  const error: DomainError = thrown(action);
  return { code: error.code, kind: error.kind, details: error.details };
}

describe('evaluateExpression over a scope', () => {
  it('resolves values and expressions transitively and lists every key once, in order of first appearance', () => {
    const costs = scope({ a: '2', b: '=a * 3', c: '=b + a', unused: '=1' });
    const evaluation = evaluateExpression('c * 2 + a', costs);
    expect(evaluation.value).toBe('18');
    expect(evaluation.references).toEqual([
      {
        key: 'c',
        id: 'c',
        value: '8',
        expression: 'b + a',
        references: ['b', 'a'],
        metadata: { cost_id: 'cost-c', scope: 'ORG', revision: 1 },
      },
      {
        key: 'b',
        id: 'b',
        value: '6',
        expression: 'a * 3',
        references: ['a'],
        metadata: { cost_id: 'cost-b', scope: 'ORG', revision: 1 },
      },
      {
        key: 'a',
        id: 'a',
        value: '2',
        expression: null,
        references: [],
        metadata: { cost_id: 'cost-a', scope: 'ORG', revision: 1 },
      },
    ]);
    expect(evaluation.explain).toBeUndefined();
  });

  it('uses an expression key at its rounded value, as it is stored', () => {
    expect(evaluateExpression('third * 3', scope({ third: '=1 / 3' })).value).toBe('0.999999999999');
  });

  it('explains every node with its exact value and canonical text', () => {
    const evaluation = evaluateExpression('round(a*2, 1) - -{b-c}', scope({ a: '1.26', 'b-c': '=0.5' }), { explain: true });
    expect(evaluation.value).toBe('3');
    expect(evaluation.explain).toEqual({
      type: 'binary',
      op: '-',
      expression: 'round(a * 2, 1) - -{b-c}',
      value: '3',
      left: {
        type: 'rounding',
        fn: 'round',
        places: 1,
        expression: 'round(a * 2, 1)',
        value: '2.5',
        arg: {
          type: 'binary',
          op: '*',
          expression: 'a * 2',
          value: '2.52',
          left: { type: 'ref', key: 'a', expression: 'a', value: '1.26' },
          right: { type: 'number', text: '2', expression: '2', value: '2' },
        },
      },
      right: {
        type: 'negate',
        expression: '-{b-c}',
        value: '-0.5',
        operand: { type: 'ref', key: 'b-c', expression: '{b-c}', value: '0.5' },
      },
    });
    expect(evaluateExpression('min(1, 2)', scope({}), { explain: true }).explain).toEqual({
      type: 'extremum',
      fn: 'min',
      expression: 'min(1, 2)',
      value: '1',
      args: [
        { type: 'number', text: '1', expression: '1', value: '1' },
        { type: 'number', text: '2', expression: '2', value: '2' },
      ],
    });
  });

  it('resolves and parses each key once, however often it is referenced', () => {
    const parsed = new Map<string, number>();
    const lookups = new Map<string, number>();
    // A ladder 16 deep where every rung references both keys of the next: 2^16 paths, 32 keys.
    const ladder: FormulaScope = {
      lookup: (key) => {
        lookups.set(key, (lookups.get(key) ?? 0) + 1);
        const [side, rung] = [key[0], Number(key.slice(1))];
        if (!/^[xy]\d+$/.test(key) || rung > 16) return undefined;
        if (rung === 16) return { kind: 'value', value: side === 'x' ? '1' : '2' };
        const expression = side === 'x' ? `x${rung + 1} + y${rung + 1}` : `x${rung + 1} * 2 - y${rung + 1}`;
        const ast = parseFormula(expression);
        return {
          kind: 'expression',
          expression,
          get ast() {
            parsed.set(key, (parsed.get(key) ?? 0) + 1);
            return ast;
          },
        } as FormulaBinding;
      },
    };
    const evaluation = evaluateExpression('x1 + y1', ladder);
    expect(evaluation.references).toHaveLength(32);
    expect([...parsed.values()].every((count) => count === 1)).toBe(true);
    expect(parsed.size).toBe(30);
    expect(Math.max(...lookups.values())).toBeLessThanOrEqual(2);
    // x(n) = x(n+1) + y(n+1), y(n) = 2x(n+1) - y(n+1): from (1, 2) at rung 16, x1 + y1 = 3 * x2.
    const x = ['1'];
    const y = ['2'];
    for (let i = 0; i < 15; i += 1) {
      const [nx, ny] = [BigInt(x[0]) + BigInt(y[0]), 2n * BigInt(x[0]) - BigInt(y[0])];
      x[0] = String(nx);
      y[0] = String(ny);
    }
    expect(evaluation.value).toBe(String(BigInt(x[0]) + BigInt(y[0])));
  });

  it('refuses unknown keys anywhere in the closure, sorted, with the subtraction hint where it fits', () => {
    const costs = scope({ fee: '1', tax: '2', total: '=fee + {fee-tax} + missing' });
    expect(refusal(() => evaluateExpression('total + {tax-fee} + zzz', costs))).toEqual({
      code: 'FORMULA_UNKNOWN_KEY',
      kind: 'rule_violation',
      details: {
        keys: ['fee-tax', 'missing', 'tax-fee', 'zzz'],
        suggestions: { 'fee-tax': 'fee - tax', 'tax-fee': 'tax - fee' },
      },
    });
    expect(refusal(() => evaluateExpression('{a-b-c}', scope({ a: '1', b: '1', c: '1' }))).details).toEqual({
      keys: ['a-b-c'],
      suggestions: { 'a-b-c': 'a - b - c' },
    });
    expect(refusal(() => evaluateExpression('{a-b-c}', scope({ a: '1', 'b-c': '1' }))).details).toEqual({
      keys: ['a-b-c'],
      suggestions: { 'a-b-c': 'a - {b-c}' },
    });
    expect(refusal(() => evaluateExpression('{a-b}', scope({ a: '1' }))).details).toEqual({ keys: ['a-b'] });
  });

  it('refuses a cycle with its path', () => {
    expect(refusal(() => evaluateExpression('a', scope({ a: '=b + 1', b: '=c', c: '=a' })))).toEqual({
      code: 'FORMULA_CYCLE',
      kind: 'rule_violation',
      details: { path: ['a', 'b', 'c', 'a'] },
    });
    expect(refusal(() => evaluateExpression('1 + x', scope({ x: '=y', y: '=y * 2' }))).details).toEqual({ path: ['y', 'y'] });
  });

  it('follows references 16 deep, refuses 17 with the chain', () => {
    const chain = (length: number): Record<string, string> => {
      const entries: Record<string, string> = {};
      for (let i = 1; i < length; i += 1) entries[`k${i}`] = `=k${i + 1} + 1`;
      entries[`k${length}`] = '1';
      return entries;
    };
    expect(evaluateExpression('k1', scope(chain(16))).value).toBe('16');
    expect(refusal(() => evaluateExpression('k1', scope(chain(17))))).toEqual({
      code: 'FORMULA_EVALUATION_ERROR',
      kind: 'rule_violation',
      details: { reason: 'depth', limit: 16, path: Array.from({ length: 17 }, (_, i) => `k${i + 1}`) },
    });
    // Saving k0 = k1 puts k0 at the top: 16 steps below it are fine, 17 are not.
    expect(checkKeyExpression('k0', 'k1', scope(chain(16))).value).toBe('16');
    expect(refusal(() => checkKeyExpression('k0', 'k1 * 2', scope(chain(17)))).details).toEqual(
      expect.objectContaining({ reason: 'depth', path: ['k0', ...Array.from({ length: 17 }, (_, i) => `k${i + 1}`)] }),
    );
  });

  it('resolves at most 64 keys', () => {
    const values = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, '1']));
    const sum = (count: number): string => Array.from({ length: count }, (_, i) => `k${i}`).join(' + ');
    expect(evaluateExpression(sum(64), scope(values)).value).toBe('64');
    expect(refusal(() => evaluateExpression(sum(65), scope(values)))).toEqual({
      code: 'FORMULA_EVALUATION_ERROR',
      kind: 'rule_violation',
      details: { reason: 'too_many_keys', limit: 64 },
    });
    // Counted over the whole closure, not one expression.
    const nested = {
      ...values,
      half: `=${sum(40)}`,
      other: `=${Array.from({ length: 30 }, (_, i) => `k${i + 40}`).join(' + ')}`,
    };
    expect(refusal(() => evaluateExpression('half + other', scope(nested))).details).toEqual({
      reason: 'too_many_keys',
      limit: 64,
    });
  });

  it('names the key whose stored expression fails to parse or to evaluate', () => {
    expect(refusal(() => evaluateExpression('a + 1', scope({ a: '=b +', b: '1' })))).toEqual({
      code: 'FORMULA_SYNTAX_ERROR',
      kind: 'invalid_request',
      details: { position: 3, key: 'a' },
    });
    expect(refusal(() => evaluateExpression('a + 1', scope({ a: `=${'1+'.repeat(101)}1` }))).details).toEqual({
      position: expect.any(Number),
      reason: 'too_many_nodes',
      key: 'a',
    });
    expect(refusal(() => evaluateExpression('a', scope({ a: '=b / (b - b)', b: '3' }))).details).toEqual({
      reason: 'division_by_zero',
      at: 'b / (b - b)',
      key: 'a',
    });
    expect(refusal(() => evaluateExpression('a / 10', scope({ a: '=b * b', b: '1000000000' }))).details).toEqual({
      reason: 'out_of_range',
      limit: '1000000000000000000',
      key: 'a',
    });
    expect(refusal(() => evaluateExpression('a', scope({ a: '1,5' }))).details).toEqual({ reason: 'invalid_value', key: 'a' });
  });

  it('takes a what-if value over the stored binding', () => {
    const costs = scope({ a: '2', b: '=a * 3' });
    expect(evaluateExpression('b', withBinding(costs, 'a', { kind: 'value', value: '10' })).value).toBe('30');
    expect(evaluateExpression('b', costs).value).toBe('6');
  });
});

describe('nested scopes: a product sees its own keys, an ORG expression ORG keys only', () => {
  const org: FormulaScope<Meta> = {
    lookup: (key) =>
      ({
        fee: { kind: 'value', value: '1', id: 'org-fee', metadata: { cost_id: 'org-fee', scope: 'ORG', revision: 3 } },
        base: {
          kind: 'expression',
          expression: 'fee * 2',
          id: 'org-base',
          scope: org,
          metadata: { cost_id: 'org-base', scope: 'ORG', revision: 1 },
        },
      })[key] as FormulaBinding<Meta> | undefined,
  };
  const product: FormulaScope<Meta> = {
    lookup: (key) =>
      key === 'fee'
        ? { kind: 'value', value: '10', id: 'p-fee', metadata: { cost_id: 'p-fee', scope: 'PRODUCT', revision: 7 } }
        : org.lookup(key),
  };

  it('keeps the shadowed ORG key apart from the PRODUCT one', () => {
    const evaluation = evaluateExpression('fee + base', product);
    expect(evaluation.value).toBe('12');
    expect(evaluation.references.map(({ key, id, value }) => [key, id, value])).toEqual([
      ['fee', 'p-fee', '10'],
      ['base', 'org-base', '2'],
      ['fee', 'org-fee', '1'],
    ]);
  });

  it('checks a saved ORG expression wherever its identity appears, nested scopes included', () => {
    // Saving ORG fee = base from the product's point of view closes org-fee → org-base → org-fee.
    expect(refusal(() => checkKeyExpression('fee', 'base', org, { id: 'org-fee' })).details).toEqual({
      path: ['fee', 'base', 'fee'],
    });
    // Saving the PRODUCT fee = base does not: base reads the ORG fee.
    expect(checkKeyExpression('fee', 'base + 1', product, { id: 'p-fee' }).value).toBe('3');
  });
});

describe('checkKeyExpression (an expression save)', () => {
  const costs = scope({ a: '=b + 1', b: '=c', c: '4' });

  it('parses, resolves with the key standing for the new expression, and evaluates', () => {
    const check = checkKeyExpression('c', 'round(d / 3, 2) + d', scope({ a: '=c', d: '2' }), {
      metadata: { cost_id: 'new', scope: 'ORG', revision: 2 },
    });
    expect(check.value).toBe('2.67');
    expect(check.references).toEqual(['d']);
    expect(check.closure.map(({ key, value, metadata }) => [key, value, metadata?.cost_id])).toEqual([
      ['c', '2.67', 'new'],
      ['d', '2', 'cost-d'],
    ]);
  });

  it('refuses an expression that closes a cycle, the path starting at the saved key', () => {
    expect(refusal(() => checkKeyExpression('c', 'a * 2', costs))).toEqual({
      code: 'FORMULA_CYCLE',
      kind: 'rule_violation',
      details: { path: ['c', 'a', 'b', 'c'] },
    });
    expect(refusal(() => checkKeyExpression('new', 'new + 1', costs)).details).toEqual({ path: ['new', 'new'] });
  });

  it('gives the submitted expression’s syntax error without a key, and unknown keys', () => {
    expect(refusal(() => checkKeyExpression('c', 'a +* 2', costs))).toEqual({
      code: 'FORMULA_SYNTAX_ERROR',
      kind: 'invalid_request',
      details: { position: 3 },
    });
    expect(refusal(() => checkKeyExpression('c', '{a-b} + q', costs)).details).toEqual({
      keys: ['a-b', 'q'],
      suggestions: { 'a-b': 'a - b' },
    });
  });
});

describe('materializeFormulas', () => {
  const costs = scope({ unit: '=base * 1.2', base: '10', extra: '=min(base, 3)', unused: '=extra + 1', broken: '=nope' });

  it('evaluates the price expression and the given keys with their closure, each key once', () => {
    const result = materializeFormulas({ expression: 'unit + extra', keys: ['unit', 'unused'] }, costs);
    expect(result.value).toBe('15');
    expect(result.keys.map(({ key, value }) => [key, value])).toEqual([
      ['unit', '12'],
      ['base', '10'],
      ['extra', '3'],
      ['unused', '4'],
    ]);
    expect(materializeFormulas({ keys: ['unused'] }, costs)).toEqual({
      value: null,
      keys: [
        expect.objectContaining({ key: 'unused', value: '4' }),
        expect.objectContaining({ key: 'extra', value: '3' }),
        expect.objectContaining({ key: 'base', value: '10' }),
      ],
    });
  });

  it('refuses a content key that is unknown or does not resolve', () => {
    expect(refusal(() => materializeFormulas({ expression: 'unit', keys: ['gone', 'broken'] }, costs)).details).toEqual({
      keys: ['gone', 'nope'],
    });
  });
});
