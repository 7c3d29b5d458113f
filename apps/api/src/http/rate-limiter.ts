import { createHash } from 'node:crypto';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  allowed: boolean;
}

const WINDOW_MS = 60_000;
export const RATE_LIMIT_WINDOW_SECONDS = WINDOW_MS / 1000;

/**
 * Fixed one-minute windows counted in process, per caller. Costs no I/O on the hot path;
 * with N instances behind a balancer the effective ceiling is N × limit (noted in docs/design.md, "Scaling out").
 * `now` is the application's Clock (the database's time), so every instance's windows start
 * on the same minute boundary whatever its host clock says (R9).
 */
export class RateLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly now: () => number,
  ) {}

  get enabled(): boolean {
    return this.limit > 0;
  }

  consume(callerKey: string): RateLimitState {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now - (now % WINDOW_MS);
      this.counts = new Map();
    }
    const used = (this.counts.get(callerKey) ?? 0) + 1;
    this.counts.set(callerKey, used);
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetSeconds: Math.ceil((this.windowStart + WINDOW_MS - now) / 1000),
      allowed: used <= this.limit,
    };
  }
}

/** The caller's credential identifies the principal without a database read; secrets are hashed. */
export function callerKey(authorization: string | undefined, ip: string): string {
  return authorization ? createHash('sha256').update(authorization).digest('base64url') : `ip:${ip}`;
}

export function rateLimitHeaders(policy: string, state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${state.limit};w=${WINDOW_MS / 1000}`,
    RateLimit: `"${policy}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
