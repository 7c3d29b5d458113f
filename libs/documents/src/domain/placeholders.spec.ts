import fc from 'fast-check';
import { placeholders, replacePlaceholders } from './placeholders';

/** The pattern the scanner replaces (catastrophic on long runs of white space): the reference on short texts. */
const BACKTRACKING = /\{\{\s*([^{}]*?)\s*\}\}/g;

describe('placeholders', () => {
  it('finds what the backtracking pattern found, at the same places, with the same names', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', ' ', '\n', '\u2028', 'a', '.'), maxLength: 24 }), (text) => {
        const expected = [...text.matchAll(BACKTRACKING)].map((match) => ({
          start: match.index,
          end: match.index + match[0].length,
          name: match[1],
        }));
        expect(placeholders(text)).toEqual(expected);
        expect(replacePlaceholders(text, (name) => `<${name}>`)).toBe(
          text.replace(BACKTRACKING, (_m, name: string) => `<${name}>`),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('reads names without their white space, and leaves unbalanced braces alone', () => {
    expect(placeholders('Hi {{ customer.name }}, {{x}} {{ {{y}} }}')).toEqual([
      { start: 3, end: 22, name: 'customer.name' },
      { start: 24, end: 29, name: 'x' },
      { start: 33, end: 38, name: 'y' },
    ]);
  });
});
