import fc from 'fast-check';
import { normalizeEmail } from './email';

const accepts = (value: string) => {
  try {
    normalizeEmail(value);
    return true;
  } catch {
    return false;
  }
};

describe('normalizeEmail', () => {
  it('accepts what the backtracking pattern accepted', () => {
    const backtracking = /^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$/;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '.', '@', ' ', 'B'), maxLength: 12 }), (text) => {
        const email = text.trim().toLowerCase();
        expect(accepts(text)).toBe(backtracking.test(email) && email.length <= 254);
      }),
      { numRuns: 5000 },
    );
    expect(normalizeEmail(' Ada@Example.COM ')).toBe('ada@example.com');
  });

  it('refuses a long dotted domain without a second @ in one pass', () => {
    expect(accepts(`a@a${'.a'.repeat(200_000)}@`)).toBe(false);
  }, 10_000);
});
