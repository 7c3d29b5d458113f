import fc from 'fast-check';
import { displayPrefix, generateToken, hashToken, verifyTokenShape } from './secret-token';

describe('secret tokens', () => {
  it.each(['sk_live', 'sk_test', 'sess'] as const)('generates verifiable %s tokens of 256 random bits', (kind) => {
    const token = generateToken(kind);
    expect(token).toMatch(new RegExp(`^${kind}_[0-9A-Za-z]{49}$`));
    expect(verifyTokenShape(token)).toBe(kind);
    expect(generateToken(kind)).not.toBe(token);
  });

  it('refuses any single-character typo, truncation or extension without a lookup', () => {
    const token = generateToken('sk_live');
    fc.assert(
      fc.property(fc.integer({ min: 8, max: token.length - 1 }), fc.constantFrom(...'0123456789abcXYZ'), (index, replacement) => {
        fc.pre(token[index] !== replacement);
        const typo = token.slice(0, index) + replacement + token.slice(index + 1);
        expect(verifyTokenShape(typo)).toBeUndefined();
      }),
    );
    expect(verifyTokenShape(token.slice(0, -1))).toBeUndefined();
    expect(verifyTokenShape(`${token}0`)).toBeUndefined();
    expect(verifyTokenShape(token.replace('sk_live_', 'sk_test_'))).toBeUndefined();
    expect(verifyTokenShape('')).toBeUndefined();
    expect(verifyTokenShape('Bearer')).toBeUndefined();
  });

  it('hashes to 32 bytes and shows a 12-character prefix', () => {
    const token = generateToken('sk_test');
    expect(hashToken(token)).toHaveLength(32);
    expect(displayPrefix(token)).toBe(token.slice(0, 12));
    expect(displayPrefix(token).startsWith('sk_test_')).toBe(true);
  });
});
