import type { Actor } from '@app/shared-kernel';
import { principalKey, rateLimitHeaders, RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('counts per caller within a one-minute window and resets with the next window', () => {
    let now = 120_000 + 15_000;
    const limiter = new RateLimiter(2, () => now);
    expect(limiter.consume('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 45, allowed: true });
    expect(limiter.consume('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 45, allowed: true });
    expect(limiter.consume('a').allowed).toBe(false);
    expect(limiter.consume('b').allowed).toBe(true);
    now += 45_000;
    expect(limiter.consume('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 60, allowed: true });
  });

  it('is disabled at 0', () => {
    expect(new RateLimiter(0, () => 0).enabled).toBe(false);
  });

  it('keys an authenticated caller by its principal, never its credential', () => {
    const actor = (type: 'api_key' | 'user', id: string, credentialId: string) =>
      ({ principal: { type, id, credentialId } }) as unknown as Actor;
    expect(principalKey(actor('user', 'u1', 'session-a'))).toBe(principalKey(actor('user', 'u1', 'session-b')));
    expect(principalKey(actor('api_key', 'k1', 'k1'))).toBe('principal:api_key:k1');
    expect(principalKey(actor('api_key', 'k1', 'k1'))).not.toBe(principalKey(actor('user', 'k1', 's')));
  });

  it('renders the IETF RateLimit headers', () => {
    expect(rateLimitHeaders('default', { limit: 1000, remaining: 998, resetSeconds: 42, allowed: true })).toEqual({
      'RateLimit-Policy': '"default";q=1000;w=60',
      RateLimit: '"default";r=998;t=42',
    });
  });
});
