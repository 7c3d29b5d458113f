import type { Actor } from '@app/shared-kernel';

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
 * What must hold across instances (sign-in attempts, PDF previews) is counted in the database.
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

/** An authenticated caller counts as its principal (an API key, or a user over all their sessions). */
export function principalKey(actor: Actor): string {
  return `principal:${actor.principal.type}:${actor.principal.id}`;
}

export function rateLimitHeaders(policy: string, state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${state.limit};w=${WINDOW_MS / 1000}`,
    RateLimit: `"${policy}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
