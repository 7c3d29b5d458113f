import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/shared-kernel';
import type { FastifyInstance } from 'fastify';
import { HttpErrors } from './http-errors';

/** What a refused client is told to wait before retrying (elsewhere, or here once restarted). */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;

/**
 * Where this process stands in a graceful shutdown (main.ts moves it on; see README "Shutdown"):
 * `serving`; `draining` (readiness answers 503, everything else is served, every response closes
 * its connection so kept-alive clients reconnect elsewhere); `refusing` (a request still arriving
 * on an open connection is answered 503 SHUTTING_DOWN with Retry-After, never reset).
 */
@Injectable()
export class ShutdownGate {
  private phase: 'serving' | 'draining' | 'refusing' = 'serving';

  get draining(): boolean {
    return this.phase !== 'serving';
  }

  get refusing(): boolean {
    return this.phase === 'refusing';
  }

  drain(): void {
    if (this.phase === 'serving') this.phase = 'draining';
  }

  refuse(): void {
    this.phase = 'refusing';
  }

  /** Every hook the gate needs; installed by configureApp, before the rate limit. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', async () => {
      if (this.refusing) throw shuttingDown();
    });
    fastify.addHook('onSend', async (request, reply) => {
      // HTTP/2 has no Connection header (and closes streams, not connections).
      if (this.draining && request.raw.httpVersionMajor === 1) void reply.header('Connection', 'close');
    });
  }
}

export function shuttingDown(): DomainError {
  return HttpErrors.SHUTTING_DOWN.create('This server is shutting down: retry on a new connection.', {
    details: { retry_after_seconds: SHUTDOWN_RETRY_AFTER_SECONDS },
  });
}
