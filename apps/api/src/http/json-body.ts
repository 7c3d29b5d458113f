import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DomainError } from '@app/shared-kernel';
import { FastifyInstance, RawServerDefault } from 'fastify';

/**
 * How deeply arrays and objects may nest in a request body. No route takes more than three
 * levels; 32 leaves room for any future shape while keeping everything downstream that walks
 * a body recursively (class-transformer, class-validator, the idempotency fingerprint) a few
 * hundred frames deep at most: about 30 KB of `[[[…]]]` (15,000 levels, far below the 1 MB
 * size limit) used to overflow class-transformer's stack, a 500 on any typed body.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Every JSON body is parsed by Fastify's own parser (prototype-poisoning checks, the size
 * limit) and then measured before anything else reads it: too deep is 400 MALFORMED_REQUEST,
 * on every route, public ones included. Nest still keeps the raw bytes beside the parsed body
 * (`rawBody: true`) for signed webhooks.
 */
export function useBoundedJsonBodies(app: NestFastifyApplication, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const parse = fastify.getDefaultJsonParser('error', 'error');
  app.useBodyParser<RawServerDefault>('application/json', { bodyLimit }, (request, body, done) =>
    parse(request, body.toString('utf8'), (error, value) => {
      if (error) done(error, undefined);
      else if (nestsDeeperThan(value, MAX_JSON_DEPTH)) done(tooDeep(), undefined);
      else done(null, value);
    }),
  );
}

/**
 * Whether arrays and objects nest more than `limit` levels (the outermost is level 1). Iterative,
 * so any depth is safe to measure; about 1 ms per MB of body, a tenth of parsing it.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const containers: object[] = [value];
  const depths: number[] = [1];
  for (let current = containers.pop(); current !== undefined; current = containers.pop()) {
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children: unknown[] = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

function tooDeep(): DomainError {
  return new DomainError(
    'invalid_request',
    'MALFORMED_REQUEST',
    `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
  );
}
