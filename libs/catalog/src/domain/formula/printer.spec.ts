import fc from 'fast-check';
import { FormulaNode } from './ast';
import { anyKey, formulaAst } from './formula-test-support';
import { parseFormula } from './parser';
import { printFormula, printKey } from './printer';

const canonical = (text: string): string => printFormula(parseFormula(text));

describe('printFormula', () => {
  it.each([
    ['a+b*c', 'a + b * c'],
    ['(a+b)*c', '(a + b) * c'],
    ['((a*b))+c', 'a * b + c'],
    ['a-(b-c)', 'a - (b - c)'],
    ['(a-b)-c', 'a - b - c'],
    ['a+(b+c)', 'a + (b + c)'],
    ['a/(b*c)', 'a / (b * c)'],
    ['a*(b/c)', 'a * (b / c)'],
    ['-(a*b)', '-(a * b)'],
    ['(-a)*b', '-a * b'],
    ['- - a', '--a'],
    ['a - -b', 'a - -b'],
    ['-(-(1))', '--1'],
    ['007.50', '007.50'],
    ['{plain}+{unit-rate}+{2024.fee}+{min}+{_x.y}', 'plain + {unit-rate} + {2024.fee} + {min} + _x.y'],
    ['min( a ,b,(c) )', 'min(a, b, c)'],
    ['round(a*2,02)', 'round(a * 2, 2)'],
    ['ceil(-a)', 'ceil(-a)'],
    ['floor((a+b), 0)', 'floor(a + b, 0)'],
  ])('prints %p as %p', (text, printed) => {
    expect(canonical(text)).toBe(printed);
  });

  it('braces only the keys a bare name cannot spell', () => {
    expect(['a', '_', 'a.b', 'a.', 'A1_', 'MIN', 'round.x'].map(printKey)).toEqual([
      'a',
      '_',
      'a.b',
      'a.',
      'A1_',
      'MIN',
      'round.x',
    ]);
    expect(['a-b', '1a', '.a', 'min', 'max', 'round', 'ceil', 'floor', '-', '9'].map(printKey)).toEqual([
      '{a-b}',
      '{1a}',
      '{.a}',
      '{min}',
      '{max}',
      '{round}',
      '{ceil}',
      '{floor}',
      '{-}',
      '{9}',
    ]);
  });

  it('round-trips: parse(print(ast)) equals ast, and printing is stable', () => {
    fc.assert(
      fc.property(formulaAst(anyKey), (ast) => {
        const printed = printFormula(ast);
        const reparsed = parseFormula(printed);
        expect(reparsed).toEqual(ast);
        expect(printFormula(reparsed)).toBe(printed);
      }),
      { numRuns: 400 },
    );
  });

  it('reads back redundant parentheses and any whitespace as the same tree', () => {
    /** An independent printer: every operand and argument in parentheses, keys always braced. */
    const spaced = (gap: string): ((ast: FormulaNode) => string) => {
      const out = (node: FormulaNode): string => {
        switch (node.type) {
          case 'number':
            return node.text;
          case 'ref':
            return `{${node.key}}`;
          case 'negate':
            return `-${gap}(${out(node.operand)})`;
          case 'binary':
            return `(${gap}${out(node.left)}${gap})${gap}${node.op}${gap}(${out(node.right)})`;
          case 'extremum':
            return `${node.fn}${gap}(${node.args.map((arg) => `(${out(arg)})`).join(`${gap},${gap}`)})`;
          case 'rounding':
            return `${node.fn}(${gap}(${out(node.arg)})${node.places === null ? '' : `,${gap}${node.places}`}${gap})`;
        }
      };
      return out;
    };
    fc.assert(
      fc.property(formulaAst(anyKey), fc.constantFrom('', ' ', '\t', '\n ', '\r\n'), (ast, gap) => {
        const text = spaced(gap)(ast);
        fc.pre(text.length <= 1000);
        expect(parseFormula(text)).toEqual(ast);
      }),
      { numRuns: 300 },
    );
  });
});
