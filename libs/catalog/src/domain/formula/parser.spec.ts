import { FormulaNode, formulaReferences } from './ast';
import { thrown } from './formula-test-support';
import { parseFormula } from './parser';

const num = (text: string): FormulaNode => ({ type: 'number', text });
const ref = (key: string): FormulaNode => ({ type: 'ref', key });
const bin = (op: '+' | '-' | '*' | '/', left: FormulaNode, right: FormulaNode): FormulaNode => ({
  type: 'binary',
  op,
  left,
  right,
});
const neg = (operand: FormulaNode): FormulaNode => ({ type: 'negate', operand });

function syntaxError(text: string): { position: unknown; reason: unknown; message: string } {
  const error = thrown(() => parseFormula(text));
  expect([error.kind, error.code]).toEqual(['invalid_request', 'FORMULA_SYNTAX_ERROR']);
  return { position: error.details?.position, reason: error.details?.reason, message: error.message };
}

describe('parseFormula', () => {
  it('gives * and / precedence over + and -, all left-associative', () => {
    expect(parseFormula('a + b * c')).toEqual(bin('+', ref('a'), bin('*', ref('b'), ref('c'))));
    expect(parseFormula('a - b - c')).toEqual(bin('-', bin('-', ref('a'), ref('b')), ref('c')));
    expect(parseFormula('a / b / c')).toEqual(bin('/', bin('/', ref('a'), ref('b')), ref('c')));
    expect(parseFormula('(a + b) * c')).toEqual(bin('*', bin('+', ref('a'), ref('b')), ref('c')));
    expect(parseFormula('a * b - c / d')).toEqual(bin('-', bin('*', ref('a'), ref('b')), bin('/', ref('c'), ref('d'))));
  });

  it('binds unary minus tighter than * and allows it after an operator and repeated', () => {
    expect(parseFormula('-a * b')).toEqual(bin('*', neg(ref('a')), ref('b')));
    expect(parseFormula('a * -b')).toEqual(bin('*', ref('a'), neg(ref('b'))));
    expect(parseFormula('2--3')).toEqual(bin('-', num('2'), neg(num('3'))));
    expect(parseFormula('--1')).toEqual(neg(neg(num('1'))));
    expect(parseFormula('-(a + 1)')).toEqual(neg(bin('+', ref('a'), num('1'))));
  });

  it('keeps numbers as written and ignores whitespace of any kind', () => {
    expect(parseFormula(' \t007.50\n*\r\n2 ')).toEqual(bin('*', num('007.50'), num('2')));
    expect(parseFormula('(((1)))')).toEqual(num('1'));
  });

  it('reads a-b as a minus b, and braces quote any key', () => {
    expect(parseFormula('a-b')).toEqual(bin('-', ref('a'), ref('b')));
    expect(parseFormula('{unit-rate}')).toEqual(ref('unit-rate'));
    expect(parseFormula('{2024.fee} + {min} + {.x} + {-}')).toEqual(
      bin('+', bin('+', bin('+', ref('2024.fee'), ref('min')), ref('.x')), ref('-')),
    );
    expect(parseFormula('{plain}')).toEqual(parseFormula('plain'));
    expect(parseFormula('_a.b_1 + a. + MIN')).toEqual(bin('+', bin('+', ref('_a.b_1'), ref('a.')), ref('MIN')));
  });

  it('keeps keys case-sensitive', () => {
    expect(formulaReferences(parseFormula('Fee + fee + FEE + fee'))).toEqual(['Fee', 'fee', 'FEE']);
  });

  it('parses min/max with 2 to 16 arguments and round/ceil/floor with optional places', () => {
    expect(parseFormula('min(a, 1)')).toEqual({ type: 'extremum', fn: 'min', args: [ref('a'), num('1')] });
    expect(parseFormula(`max(${Array(16).fill('1').join(',')})`)).toEqual({
      type: 'extremum',
      fn: 'max',
      args: Array(16).fill(num('1')),
    });
    expect(parseFormula('round(a)')).toEqual({ type: 'rounding', fn: 'round', arg: ref('a'), places: null });
    expect(parseFormula('ceil(a * 2, 12)')).toEqual({
      type: 'rounding',
      fn: 'ceil',
      arg: bin('*', ref('a'), num('2')),
      places: 12,
    });
    expect(parseFormula('floor(a, 0)')).toEqual({ type: 'rounding', fn: 'floor', arg: ref('a'), places: 0 });
    expect(parseFormula('round(a, 02)')).toEqual({ type: 'rounding', fn: 'round', arg: ref('a'), places: 2 });
  });

  it('accepts 1,000 characters and 200 nodes, and 490 nested parentheses', () => {
    const terms = Array(99).fill('1').join('+'); // 99 numbers + 98 operators, then + -a: 200 nodes
    expect(() => parseFormula(`${terms} + -a`.padEnd(1000, ' '))).not.toThrow();
    expect(() => parseFormula(`${'('.repeat(490)}1${')'.repeat(490)}`)).not.toThrow();
  });

  it.each<[string, number, string]>([
    ['', 0, 'Expected a number, a key, a function or'],
    ['   ', 3, 'found the end of the formula'],
    ['1 +', 3, 'found the end of the formula'],
    ['a b', 2, "Unexpected 'b'"],
    ['(a + 1', 6, "Expected ')' to close the '(' at position 0"],
    ['a + 1)', 5, "Unmatched ')'"],
    ['+1', 0, "found '+'"],
    ['a # b', 2, 'Unexpected character "#"'],
    ['a ² b', 2, 'Unexpected character "²"'],
    ['1.', 2, "digits after its '.'"],
    ['1.+2', 2, "digits after its '.'"],
    ['.5', 0, 'A number starts with a digit: write 0.5'],
    ['2024.fee', 0, 'goes in braces: {2024.fee}'],
    ['12abc * 2', 0, 'goes in braces: {12abc}'],
    ['1.5.2', 0, 'goes in braces: {1.5.2}'],
    ['a + .x', 4, 'goes in braces: {.x}'],
    ['{unit rate}', 5, 'Unexpected character " " in a braced key'],
    ['{a$b}', 2, 'Unexpected character "$" in a braced key'],
    ['{unit-rate + 1', 0, "Unclosed '{'"],
    ['{}', 0, 'Empty braces'],
    ['min', 0, "'min' is a function name: write {min}"],
    ['min + 1', 0, "'min' is a function name: write {min}"],
    ['2 * floor', 4, "'floor' is a function name: write {floor}"],
    ['sum(1, 2)', 0, "'sum' is not a function; the functions are min, max, round, ceil, floor"],
    ['min(1)', 5, 'min takes 2 to 16 arguments'],
    ['max()', 4, 'Expected a number'],
    [`max(${Array(17).fill('1').join(',')})`, 35, 'max takes at most 16 arguments'],
    ['min(1, 2', 8, "Expected ',' or ')' to close 'min' at position 0"],
    ['round(1, 13)', 9, 'The places of round must be an integer literal from 0 to 12'],
    ['round(1, 1.5)', 9, 'integer literal'],
    ['ceil(1, a)', 8, 'integer literal'],
    ['floor(1, -1)', 9, 'integer literal'],
    ['round(1, 2 + 1)', 9, 'integer literal'],
    ['round(1, (2))', 9, 'integer literal'],
    ['round(1, 2, 3)', 10, 'round takes at most 2 arguments'],
    ['round(,1)', 6, "found ','"],
    ['Round(1)', 0, "'Round' is not a function"],
  ])('refuses %p at position %p', (text, position, message) => {
    const error = syntaxError(text);
    expect(error.position).toBe(position);
    expect(error.message).toContain(message);
    expect(error.message).toContain(`(at position ${position})`);
  });

  it('refuses 999 unclosed parentheses with a syntax error, not a stack overflow', () => {
    expect(syntaxError(`${'('.repeat(999)}1`).position).toBe(1000);
    expect(syntaxError(`${'('.repeat(1000)}`).position).toBe(1000);
  });

  it('refuses more than 1,000 characters, at position 1000', () => {
    expect(syntaxError(`1${' '.repeat(1000)}`)).toEqual(expect.objectContaining({ position: 1000, reason: 'too_long' }));
  });

  it('refuses the 201st node where it starts', () => {
    // 101 numbers and 100 operators: the 201st node is the 100th '+', at offset 199.
    expect(syntaxError(Array(101).fill('1').join('+'))).toEqual(
      expect.objectContaining({ position: 199, reason: 'too_many_nodes' }),
    );
    expect(syntaxError(`${'-'.repeat(200)}1`)).toEqual(expect.objectContaining({ position: 200, reason: 'too_many_nodes' }));
  });

  it('bounds number literals: 18 significant integer digits, 20 fraction digits', () => {
    expect(parseFormula(`000${'9'.repeat(18)}`)).toEqual(num(`000${'9'.repeat(18)}`));
    expect(parseFormula('1.12345678901234567890')).toEqual(num('1.12345678901234567890'));
    expect(syntaxError('2 * 1234567890123456789')).toEqual(expect.objectContaining({ position: 4, reason: 'number_too_long' }));
    expect(syntaxError('1.123456789012345678901')).toEqual(expect.objectContaining({ position: 0, reason: 'number_too_long' }));
  });

  it('bounds keys at 64 characters, bare or braced', () => {
    const key64 = 'k'.repeat(64);
    expect(parseFormula(key64)).toEqual(ref(key64));
    expect(parseFormula(`{${key64}}`)).toEqual(ref(key64));
    expect(syntaxError(`1 + ${key64}k`)).toEqual(expect.objectContaining({ position: 4, reason: 'key_too_long' }));
    expect(syntaxError(`1 + {${key64}-}`)).toEqual(expect.objectContaining({ position: 4, reason: 'key_too_long' }));
  });

  it('refuses a value that is not a string without throwing anything but the syntax error', () => {
    expect(syntaxError(42 as unknown as string).position).toBe(0);
  });
});

describe('formulaReferences', () => {
  it('lists distinct keys in order of first appearance', () => {
    expect(formulaReferences(parseFormula('b + min(a, {b}, c) * round(a, 2) - {x-y}'))).toEqual(['b', 'a', 'c', 'x-y']);
    expect(formulaReferences(parseFormula('1 + 2'))).toEqual([]);
  });
});
