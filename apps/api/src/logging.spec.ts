import fc from 'fast-check';
import { logDestination, redactUrl } from './logging';

describe('redactUrl', () => {
  const token = `sk_live_${'a1B2'.repeat(12)}Zz9Yy8x`;

  it('cuts bearer tokens out of paths and query strings, whole or cut short', () => {
    expect(redactUrl(`/v1/api_keys/${token}`)).toBe('/v1/api_keys/[redacted]');
    expect(redactUrl(`/v1/customers?limit=5&x=${token.replace('live', 'test')}`)).toBe('/v1/customers?limit=5&x=[redacted]');
    expect(redactUrl(`/v1/customers/sess_${'Q'.repeat(20)}`)).toBe('/v1/customers/[redacted]');
  });

  it('cuts the value of a query parameter named for a credential, whatever it holds', () => {
    expect(redactUrl('/v1/customers?api_key=abc&limit=5')).toBe('/v1/customers?api_key=[redacted]&limit=5');
    expect(redactUrl('/v1/x?access_token=abc#frag')).toBe('/v1/x?access_token=[redacted]#frag');
    expect(redactUrl('/v1/x?Password=hunter2&apiKey=k&authorization=Bearer%20x')).toBe(
      '/v1/x?Password=[redacted]&apiKey=[redacted]&authorization=[redacted]',
    );
  });

  it('leaves ordinary URLs alone', () => {
    for (const url of [
      '/v1/customers?limit=5&customer_id=0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02',
      '/v1/costs?key=api_fee',
      '/health/live',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('cuts credential parameters as the backtracking pattern did, in one pass', () => {
    const backtracking = /([?&][^=&#]*(?:password|secret|token|api_?key|auth)[^=&#]*=)[^&#]*/gi;
    fc.assert(
      fc.property(fc.array(fc.constantFrom('?', '&', '=', '#', 'a', 'token', 'AUTH', 'x'), { maxLength: 14 }), (pieces) => {
        const url = `/v1/x${pieces.join('')}`;
        expect(redactUrl(url)).toBe(url.replace(backtracking, '$1[redacted]'));
      }),
      { numRuns: 5000 },
    );
    const attack = `/v1/x${'?'.repeat(100_000)}${'AUTH'.repeat(1000)}`;
    expect(redactUrl(attack)).toBe(attack);
  }, 10_000);
});

describe('logDestination', () => {
  it('writes JSON lines to stdout outside development, and when LOG_FORMAT=json asks for them', () => {
    expect(logDestination({ NODE_ENV: 'production' })).toBe(process.stdout);
    expect(logDestination({ NODE_ENV: 'test' })).toBe(process.stdout);
    expect(logDestination({ NODE_ENV: 'development', LOG_FORMAT: 'json' })).toBe(process.stdout);
  });

  it('writes readable lines in development, and when LOG_FORMAT=pretty asks for them', () => {
    expect(logDestination({ NODE_ENV: 'development' })).not.toBe(process.stdout);
    expect(logDestination({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' })).not.toBe(process.stdout);
  });
});
