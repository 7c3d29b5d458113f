import fc from 'fast-check';
import { oneLine } from './one-line';

describe('oneLine', () => {
  it('joins lines as the backtracking pattern did', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('\n', '\r', ' ', '\t', '\u2028', 'a'), maxLength: 16 }), (text) => {
        expect(oneLine(text)).toBe(text.replace(/\s*\n\s*/g, ' '));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a long run of white space without a line break in one pass', () => {
    const text = `a${'\t'.repeat(200_000)}b\n`;
    expect(oneLine(text)).toBe(`a${'\t'.repeat(200_000)}b `);
  }, 10_000);
});
