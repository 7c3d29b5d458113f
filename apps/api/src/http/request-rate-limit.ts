import { clientAddressKey, SharedErrors } from '@app/shared-kernel';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isOperational } from './operational-paths';
import { rateLimitHeaders, RateLimiter } from './rate-limiter';

/**
 * Counts each request once against its caller: the authenticated principal, whatever the
 * spelling of its Authorization header, or the client address (TRUST_PROXY applied) for public
 * routes and refused credentials. A request carrying credentials is counted by the auth guard,
 * once they are resolved (from the credential cache, so the cheap path stays cheap); one without
 * them, or for no route, is counted as it arrives; one answered before the guard (a malformed
 * body) is counted against its address as it leaves.
 */
export class RequestRateLimit {
  private readonly counted = new WeakSet<FastifyRequest>();

  constructor(private readonly limiter: RateLimiter) {}

  install(fastify: FastifyInstance): void {
    if (!this.limiter.enabled) return;
    fastify.addHook('onRequest', async (request, reply) => {
      if (request.headers.authorization === undefined || request.routeOptions.url === undefined) {
        this.countAddress(request, reply);
      }
    });
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (!isOperational(request.url) && !this.counted.has(request)) this.tally(request, reply, clientAddressKey(request.ip));
      return payload;
    });
  }

  countAddress(request: FastifyRequest, reply: FastifyReply): void {
    if (this.limiter.enabled) this.count(request, reply, clientAddressKey(request.ip));
  }

  /** Past the limit: 429 RATE_LIMITED with Retry-After. */
  count(request: FastifyRequest, reply: FastifyReply, caller: string): void {
    if (!this.limiter.enabled || this.counted.has(request) || isOperational(request.url)) return;
    const state = this.tally(request, reply, caller);
    if (!state.allowed) {
      throw SharedErrors.RATE_LIMITED.create(`Rate limit of ${this.limiter.limit} requests per minute exceeded.`, {
        details: { retry_after_seconds: state.resetSeconds },
      });
    }
  }

  private tally(request: FastifyRequest, reply: FastifyReply, caller: string) {
    this.counted.add(request);
    const state = this.limiter.consume(caller);
    void reply.headers(rateLimitHeaders('default', state));
    return state;
  }
}
