import fc from 'fast-check';
import { DomainError } from '@app/shared-kernel';
import { countNodes, FormulaNode } from './ast';
import { FORMULA_LIMITS } from './limits';
import { printFormula } from './printer';

/** Test support for the formula specs (not a spec itself): the thrown DomainError, and random ASTs. */
export function thrown(action: () => unknown): DomainError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('Expected a DomainError, nothing was thrown.');
}

/** `digit+ ("." digit+)?` within the literal bounds, leading and trailing zeros included. */
export const numberText: fc.Arbitrary<string> = fc
  .tuple(fc.stringMatching(/^\d{1,6}$/), fc.option(fc.stringMatching(/^\d{1,6}$/), { nil: undefined }))
  .map(([integer, fraction]) => (fraction === undefined ? integer : `${integer}.${fraction}`));

/** Any stored key, with the awkward ones (function names, dashes, leading digits or dots) often. */
export const anyKey: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,8}$/),
  fc.constantFrom('min', 'max', 'round', 'ceil', 'floor', 'MIN', 'a-b', '2024.fee', '.x', '_', 'a.', '-', '9'),
);

/** Random formulas over `keys` and `numbers`, within the node and length limits. */
export function formulaAst(keys: fc.Arbitrary<string>, numbers: fc.Arbitrary<string> = numberText): fc.Arbitrary<FormulaNode> {
  const tree = fc.letrec<{ node: FormulaNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 2, arbitrary: numbers.map((text): FormulaNode => ({ type: 'number', text })) },
      { weight: 2, arbitrary: keys.map((key): FormulaNode => ({ type: 'ref', key })) },
      { weight: 1, arbitrary: tie('node').map((operand): FormulaNode => ({ type: 'negate', operand })) },
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom('+', '-', '*', '/') as fc.Arbitrary<'+' | '-' | '*' | '/'>, tie('node'), tie('node'))
          .map(([op, left, right]): FormulaNode => ({ type: 'binary', op, left, right })),
      },
      fc
        .tuple(
          fc.constantFrom('min', 'max') as fc.Arbitrary<'min' | 'max'>,
          fc.array(tie('node'), { minLength: 2, maxLength: 4 }),
        )
        .map(([fn, args]): FormulaNode => ({ type: 'extremum', fn, args })),
      fc
        .tuple(
          fc.constantFrom('round', 'ceil', 'floor') as fc.Arbitrary<'round' | 'ceil' | 'floor'>,
          tie('node'),
          fc.option(fc.integer({ min: 0, max: FORMULA_LIMITS.maxPlaces }), { nil: null }),
        )
        .map(([fn, arg, places]): FormulaNode => ({ type: 'rounding', fn, arg, places })),
    ),
  })).node;
  // Bigger trees too: several random trees joined by operators, nesting on either side.
  const joined = fc
    .tuple(
      tree,
      fc.array(fc.tuple(fc.constantFrom('+', '-', '*', '/') as fc.Arbitrary<'+' | '-' | '*' | '/'>, tree, fc.boolean()), {
        maxLength: 8,
      }),
    )
    .map(([first, rest]) =>
      rest.reduce<FormulaNode>(
        (left, [op, right, swap]) =>
          swap ? { type: 'binary', op, left: right, right: left } : { type: 'binary', op, left, right },
        first,
      ),
    );
  return fc
    .oneof(tree, joined)
    .filter((ast) => countNodes(ast) <= FORMULA_LIMITS.maxNodes && printFormula(ast).length <= FORMULA_LIMITS.maxLength);
}
