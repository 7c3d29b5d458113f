import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { type CursorBinding, CursorCodec } from './cursor';
import { DomainError } from './domain-error';

const SECRET = 'test-secret-0123456789abcdef0123456789';
const codec = new CursorCodec(SECRET);
const binding: CursorBinding = { list: 'invoices', filters: { status: 'open', customer: 'cus_1' }, order: 'created_at:desc' };

function expectInvalid(decode: () => unknown): void {
  let thrown: unknown;
  try {
    decode();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DomainError);
  expect(thrown).toMatchObject({ kind: 'invalid_request', code: 'INVALID_CURSOR', param: 'cursor' });
}

const positionArb = fc.array(
  fc.oneof(
    fc.string(),
    fc.uuid(),
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.boolean(),
    fc.constant(null),
  ),
  { maxLength: 4 },
);

describe('CursorCodec', () => {
  it('round-trips positions', () => {
    const position = ['2024-05-01T10:00:00.000Z', '0b7c5c9e-3f4e-4a8a-9c61-0d3e8b8f2a11', 42, 0.5, null, 'é/+?&'];
    expect(codec.decode(codec.encode(binding, position), binding)).toEqual(position);
    fc.assert(
      fc.property(positionArb, (p) => {
        expect(codec.decode(codec.encode(binding, p), binding)).toEqual(p);
      }),
    );
  });

  it('issues compact, URL-safe cursors', () => {
    const cursor = codec.encode(binding, ['2024-05-01T10:00:00.000Z', '0b7c5c9e-3f4e-4a8a-9c61-0d3e8b8f2a11']);
    expect(cursor).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(cursor.length).toBeLessThan(120);
    expect(encodeURIComponent(cursor)).toBe(cursor);
  });

  it('accepts the same filters given in another key order', () => {
    const cursor = codec.encode(binding, ['x']);
    expect(codec.decode(cursor, { ...binding, filters: { customer: 'cus_1', status: 'open' } })).toEqual(['x']);
  });

  it('accepts a cursor decoded by another codec with the same secret, given as a Buffer', () => {
    const cursor = codec.encode(binding, [1]);
    expect(new CursorCodec(Buffer.from(SECRET)).decode(cursor, binding)).toEqual([1]);
  });

  it('refuses a cursor replayed on another list, filter set or order', () => {
    const cursor = codec.encode(binding, ['x']);
    expectInvalid(() => codec.decode(cursor, { ...binding, list: 'customers' }));
    expectInvalid(() => codec.decode(cursor, { ...binding, filters: { status: 'paid', customer: 'cus_1' } }));
    expectInvalid(() => codec.decode(cursor, { ...binding, filters: { status: 'open' } }));
    expectInvalid(() => codec.decode(cursor, { ...binding, filters: { ...binding.filters, currency: 'USD' } }));
    expectInvalid(() => codec.decode(cursor, { ...binding, order: 'created_at:asc' }));
  });

  it('refuses a cursor issued with another secret', () => {
    const cursor = new CursorCodec('another-secret-0123456789abcdef01234').encode(binding, ['x']);
    expectInvalid(() => codec.decode(cursor, binding));
  });

  it('refuses a cursor with any single character changed', () => {
    fc.assert(
      fc.property(positionArb, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (position, at, replacement) => {
        const cursor = codec.encode(binding, position);
        const index = at % cursor.length;
        fc.pre(cursor[index] !== replacement);
        const tampered = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
        expectInvalid(() => codec.decode(tampered, binding));
      }),
    );
  });

  it('refuses every URL-safe single-character change of a cursor, padding bits included', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    const cursor = codec.encode(binding, ['2024-05-01T10:00:00.000Z', 7]);
    for (let index = 0; index < cursor.length; index++) {
      for (const replacement of alphabet.replace(cursor[index], '')) {
        const tampered = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
        expectInvalid(() => codec.decode(tampered, binding));
      }
    }
  });

  it('refuses truncated or extended cursors', () => {
    const cursor = codec.encode(binding, ['x', 1]);
    expectInvalid(() => codec.decode(cursor.slice(0, -1), binding));
    expectInvalid(() => codec.decode(`${cursor}A`, binding));
    expectInvalid(() => codec.decode(`${cursor}.`, binding));
    expectInvalid(() => codec.decode(cursor.slice(3), binding));
  });

  it.each([undefined, null, 42, '', '.', '..', 'v1..', 'v1.e30.', 'not a cursor', ['v1.a.b'], { cursor: 'x' }])(
    'refuses %p',
    (cursor) => {
      expectInvalid(() => codec.decode(cursor, binding));
    },
  );

  it('refuses garbage with nothing but INVALID_CURSOR', () => {
    const base64urlish = fc.string({ unit: fc.constantFrom(...'ABCabc019-_.=+/ v') });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          base64urlish,
          base64urlish.map((s) => `v1.${s}`),
        ),
        (garbage) => {
          expectInvalid(() => codec.decode(garbage, binding));
        },
      ),
    );
  });

  it('refuses a correctly signed payload that is not a position', () => {
    const forge = (json: string) => {
      const payload = Buffer.from(json).toString('base64url');
      const boundTo = '{"filters":{"customer":"cus_1","status":"open"},"list":"invoices","order":"created_at:desc"}';
      const key = createHmac('sha256', SECRET).update('pagination-cursor').digest();
      const signature = createHmac('sha256', key)
        .update(`v1.${payload}.${boundTo}`)
        .digest()
        .subarray(0, 16)
        .toString('base64url');
      return `v1.${payload}.${signature}`;
    };
    expect(codec.decode(forge('["ok"]'), binding)).toEqual(['ok']);
    expectInvalid(() => codec.decode(forge('{"p":1}'), binding));
    expectInvalid(() => codec.decode(forge('not json'), binding));
    expectInvalid(() => codec.decode(forge(''), binding));
  });

  it('needs a secret', () => {
    expect(() => new CursorCodec('')).toThrow(Error);
    expect(() => new CursorCodec(Buffer.alloc(0))).toThrow(Error);
  });
});
