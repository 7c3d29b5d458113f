import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DomainError } from '@app/shared-kernel';
import { FastifyInstance } from 'fastify';
import { unsupportedMediaType } from './error-response';
import { nulInBody } from './nul-characters';
import { HttpErrors } from './http-errors';

/**
 * How deeply arrays and objects may nest in a request body. No route takes more than three
 * levels; 32 leaves room for any future shape while keeping everything downstream that walks
 * a body recursively (class-transformer, class-validator, the idempotency fingerprint) a few
 * hundred frames deep at most: about 30 KB of `[[[…]]]` (15,000 levels, far below the 1 MB
 * size limit) used to overflow class-transformer's stack, a 500 on any typed body.
 */
/** The largest request body the app reads (Fastify's bodyLimit); also the bound the OpenAPI document gives unbounded strings. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export const MAX_JSON_DEPTH = 32;

/**
 * JSON only: any other body type is a 415 rather than a string or form fields handed to the
 * validators. Fastify brings a text/plain parser, and Nest adds an url-encoded one at init unless
 * a parser is already registered for the type; the catch-all below is registered, so Nest adds
 * none. A JSON body is parsed by Fastify's own parser (prototype-poisoning checks, the size
 * limit) and then measured before anything else reads it: too deep is 400 MALFORMED_REQUEST, a NUL
 * character anywhere is 400 VALIDATION_ERROR, on every route, public ones included; a charset other than UTF-8 is a 415. It keeps its raw bytes: provider webhooks are signed over them.
 */
export function acceptJsonBodiesOnly(adapter: FastifyAdapter, bodyLimit: number): void {
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  fastify.removeContentTypeParser('text/plain');
  const parse = fastify.getDefaultJsonParser('error', 'error');
  adapter.useBodyParser('application/json', true, { bodyLimit }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && !UTF8.test(charset)) {
      done(notUtf8(charset), undefined);
      return;
    }
    const text = body.toString('utf8');
    parse(request, text, (error, value) => {
      if (error) done(syntaxErrorOf(text) ?? error, undefined);
      else if (nestsDeeperThan(value, MAX_JSON_DEPTH)) done(tooDeep(), undefined);
      else {
        const refusal = nulInBody(text, value);
        done(refusal ?? null, refusal ? undefined : value);
      }
    });
  });
  adapter.useBodyParser('*', false, { bodyLimit }, (_request, _body, done) => done(unsupportedMediaType(), undefined));
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

/**
 * Where a body stops being JSON, as position, line and column: V8's own message may quote the
 * body (a secret in it would be echoed and logged), so only its position is kept.
 */
export function syntaxErrorOf(text: string): DomainError | undefined {
  if (text.trim() === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const position = Number(/at position (\d+)/.exec((error as Error).message)?.[1] ?? text.length);
    const before = text.slice(0, position).split('\n');
    return HttpErrors.MALFORMED_REQUEST.create(
      `The request body is not valid JSON: syntax error at position ${position} (line ${before.length}, column ${before[before.length - 1].length + 1}).`,
    );
  }
}

/** JSON travels as UTF-8 (RFC 8259 §8.1); a body declared in another charset would be read as mojibake. */
const UTF8 = /^(utf-?8|us-ascii)$/i;

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match?.[1];
}

function notUtf8(charset: string): DomainError {
  return HttpErrors.UNSUPPORTED_MEDIA_TYPE.create(
    `Send the request body as application/json in UTF-8, not ${charset.slice(0, 40)}.`,
  );
}

function tooDeep(): DomainError {
  return HttpErrors.MALFORMED_REQUEST.create(
    `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
  );
}
