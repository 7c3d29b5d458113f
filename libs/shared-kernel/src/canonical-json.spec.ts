import fc from 'fast-check';
import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('sorts keys as strings, integer-like ones included', () => {
    expect(canonicalJson({ b: 1, 10: 2, 2: 3, A: 4 })).toBe('{"10":2,"2":3,"A":4,"b":1}');
  });

  it('drops and replaces values as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: () => 1, c: Symbol('c'), d: [undefined, NaN, Infinity] })).toBe(
      '{"d":[null,null,null]}',
    );
    expect(canonicalJson({ at: new Date('2024-01-02T03:04:05.000Z') })).toBe('{"at":"2024-01-02T03:04:05.000Z"}');
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it('gives the same text for the same data whatever the key order, and the same data as JSON.stringify', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const shuffled = JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
          item !== null && typeof item === 'object' && !Array.isArray(item)
            ? Object.fromEntries(Object.entries(item).reverse())
            : item,
        ) as unknown;
        expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
