import { randomUUID } from 'node:crypto';
import { Logger, RequestMethod } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Logger as PinoLogger } from 'nestjs-pino';
import { AppConfig } from './config/app-config';
import { AllExceptionsFilter, sendError } from './http/all-exceptions.filter';
import { acceptJsonBodiesOnly, BODY_LIMIT_BYTES } from './http/json-body';
import { answerClientError, refuseAmbiguousHeaders } from './http/request-headers';
import { RejectUndeclaredInputInterceptor } from './http/reject-undeclared-input.interceptor';
import { RequestRateLimit } from './http/request-rate-limit';
import { refuseNulInUrl } from './http/nul-characters';
import { isOperational } from './http/operational-paths';
import { ShutdownGate } from './http/shutdown-gate';
import { createValidationPipe } from './http/validation';
import { setupOpenApi } from './openapi';

const routerLogger = new Logger('HTTP');

export function createFastifyAdapter(config: Pick<AppConfig, 'TRUST_PROXY'>): FastifyAdapter {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    genReqId: () => `req_${randomUUID()}`,
    requestIdHeader: false,
    // Every route answers with and without the /v1 prefix; only /v1 is documented.
    rewriteUrl: (request: { url?: string }) => {
      const url = request.url ?? '/';
      return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?') || isOperational(url) ? url : `/v1${url}`;
    },
    // Shutdown is ours (main.ts, ShutdownGate): Fastify's 503 has not the contract's body, and
    // closing "idle" sockets at close() resets those whose request is on its way.
    return503OnClosing: false,
    forceCloseConnections: false,
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own; refuseAmbiguousHeaders answers it in the contract.
    http: { requireHostHeader: false },
    // Requests Node's parser refuses (headers over 16 KB, control characters) get the contract's body too.
    clientErrorHandler: answerClientError,
    // A path the router refuses before any route matches (bad percent-encoding, a segment over 100 characters) too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
      sendError(error, request, reply, routerLogger);
    },
  });
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  acceptJsonBodiesOnly(adapter, BODY_LIMIT_BYTES);
  fastify.addHook('onRequest', async (request, reply) => {
    (request.raw as { id?: string }).id = request.id;
    // nosniff on every answer: a browser must never read a JSON body, a text render or an error as HTML or script.
    void reply.header('Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
  });
  fastify.addHook('onRequest', refuseAmbiguousHeaders);
  fastify.addHook('preValidation', refuseNulInUrl);
  return adapter;
}

function parseTrustProxy(value: string | undefined): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value.split(',').map((entry) => entry.trim());
}

/** Pipes, filters, interceptors, hooks and docs: shared by main.ts and the e2e tests. */
export async function configureApp(app: NestFastifyApplication): Promise<void> {
  app.useLogger(app.get(PinoLogger));
  applyGlobalPrefix(app);
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalInterceptors(new RejectUndeclaredInputInterceptor());

  app.get(ShutdownGate).install(app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
  app.get(RequestRateLimit).install(app.getHttpAdapter().getInstance() as unknown as FastifyInstance);

  setupOpenApi(app);
}

/** Every route under /v1 but the health probes; the offline OpenAPI build (openapi-document.ts) applies it too. */
export function applyGlobalPrefix(app: NestFastifyApplication): void {
  app.setGlobalPrefix('v1', {
    exclude: [
      { path: 'health/live', method: RequestMethod.GET },
      { path: 'health/ready', method: RequestMethod.GET },
    ],
  });
}
