import { INestApplication } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { OpenAPIObject } from '@nestjs/swagger';
import { isOrganizationLevel, isScope } from '@app/identity';
import { ANY_SCOPE, PUBLIC_ROUTE, REQUIRED_SCOPE } from './auth/route-access';
import { API_ERRORS, ErrorCode, exampleBody, statusOf } from './error-catalog';
import { idempotencyKeyRule, IdempotencyKeyRule, replayAsConflictField } from './idempotency.interceptor';
import { isOperational } from './operational-paths';
import { operationIdOf } from './operation-id';
import { RATE_LIMIT_WINDOW_SECONDS } from './rate-limiter';
import { declaredInputOf } from './reject-undeclared-input.interceptor';
import { addResponseHeaders, RESPONSE_HEADERS } from './response-headers.docs';

export const ERROR_SCHEMA = 'ErrorBody';
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const WITH_BODY = new Set(['post', 'put', 'patch']);

/** What the app enforces on one route, read from the same metadata the guard and interceptors read. */
interface RouteFacts {
  authenticated: boolean;
  scope: string | undefined;
  /** Organization-level resources (users, workspaces, the audit log) refuse sandbox principals. */
  organizationLevel: boolean;
  idempotency: IdempotencyKeyRule;
  replayAsConflict: boolean;
  hasBody: boolean;
  hasCursor: boolean;
  rateLimited: boolean;
  declared: ErrorCode[];
}

interface Handler {
  controller: object;
  handler: (...args: unknown[]) => unknown;
  name: string;
}

type Operation = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Completes the generated document from each route's metadata, in one place rather than per
 * controller: the Idempotency-Key header where the interceptor requires it, and every error
 * status the route can answer (authentication, scope, input, idempotency, rate limit and the
 * handler's own codes declared with @ApiErrors), each with the codes it carries and an example
 * per code.
 */
export function describeRoutes(app: INestApplication, document: OpenAPIObject): OpenAPIObject {
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...RATE_LIMIT_HEADERS, ...NOSNIFF_HEADER, ...RESPONSE_HEADERS },
  };
  const handlers = handlersByOperationId(app);
  const reflector = new Reflector();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      const route = handlers.get(operation.operationId);
      if (!route) throw new Error(`No handler found for the documented operation ${operation.operationId}.`);
      const facts = factsOf(route, method, path, operation, reflector);
      unfillOptionalFilters(operation);
      describeParsedPathParameters(route, path, operation);
      if (facts.idempotency !== 'none') addIdempotencyKeyHeader(operation, facts.idempotency);
      for (const [status, codes] of errorCodes(facts)) {
        operation.responses[status] = alongside(operation.responses[status], errorResponse(status, codes, facts.scope));
      }
      if (facts.rateLimited) addRateLimitHeaders(operation);
      addNosniffHeader(operation);
      addResponseHeaders(operation, facts.idempotency !== 'none');
    }
  }
  return document;
}

function handlersByOperationId(app: INestApplication): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as { name: string; prototype: Record<string, unknown> } | null;
      if (!controller) continue;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        handlers.set(operationIdOf(controller, name, handler), { controller, handler: handler as Handler['handler'], name });
      }
    }
  }
  return handlers;
}

function factsOf(
  { controller, handler }: Handler,
  method: string,
  path: string,
  operation: Operation,
  reflector: Reflector,
): RouteFacts {
  const targets = [handler, controller as new () => unknown];
  const authenticated = !reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets);
  const input = declaredInputOf(controller, handler);
  const parameters: Array<{ in: string; name: string }> = operation.parameters ?? [];
  const scope = reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, targets);
  return {
    authenticated,
    scope,
    organizationLevel: scope !== undefined && isScope(scope) && isOrganizationLevel(scope),
    idempotency: idempotencyKeyRule(method, authenticated, handler),
    replayAsConflict: replayAsConflictField(handler) !== undefined,
    hasBody: WITH_BODY.has(method) || input.body !== 'none',
    hasCursor: parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'cursor'),
    rateLimited: !isOperational(path),
    declared: reflector.get<ErrorCode[] | undefined>(API_ERRORS, handler) ?? [],
  };
}

/** Each status the route can answer, with its codes: implied by the route's metadata first, then the handler's own. */
function errorCodes(facts: RouteFacts): Map<number, ErrorCode[]> {
  const implied: ErrorCode[] = [
    'VALIDATION_ERROR',
    'DUPLICATE_HEADER',
    'HEADERS_TOO_LARGE',
    ...(facts.hasBody ? (['MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const) : []),
    ...(facts.hasCursor ? (['INVALID_CURSOR'] as const) : []),
    ...(facts.idempotency === 'required' ? (['IDEMPOTENCY_KEY_REQUIRED'] as const) : []),
    ...(facts.idempotency !== 'none'
      ? (['IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED'] as const)
      : []),
    // A transfer's key, or a key whose response was over IDEMPOTENCY_RESPONSE_MAX_BYTES (pure routes keep none).
    ...(facts.replayAsConflict || facts.idempotency === 'required' ? (['IDEMPOTENCY_KEY_ALREADY_PROCESSED'] as const) : []),
    ...(facts.authenticated
      ? ([
          'UNAUTHENTICATED',
          'API_KEY_REVOKED',
          'API_KEY_EXPIRED',
          'IP_NOT_ALLOWED',
          'WORKSPACE_FORBIDDEN',
          'WORKSPACE_MODE_MISMATCH',
          'INSUFFICIENT_SCOPE',
          'WORKSPACE_NOT_FOUND',
        ] as const)
      : []),
    ...(facts.organizationLevel ? (['SANDBOX_PRINCIPAL_FORBIDDEN'] as const) : []),
    ...(facts.rateLimited ? (['RATE_LIMITED'] as const) : []),
    // Any request that reaches a server after its shutdown drain is refused (main.ts).
    'SHUTTING_DOWN',
    // A database outage answers every route that reaches it with a retryable 503, not a 500.
    'DATABASE_UNAVAILABLE',
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...implied, ...facts.declared]) {
    const codes = byStatus.get(statusOf(code)) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(statusOf(code), codes);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/**
 * A status the handler documents with a body of its own (readiness: 503 with its checks) keeps it,
 * beside the error body its codes answer with (503 SHUTTING_DOWN).
 */
function alongside(declared: Operation | undefined, errors: Operation): Operation {
  const own = declared?.content?.['application/json']?.schema;
  if (!own) return errors;
  const json = errors.content['application/json'];
  return {
    ...errors,
    description: `${declared.description ?? ''} Or ${errors.description}`.trim(),
    content: { 'application/json': { ...json, schema: { oneOf: [own, json.schema] } } },
  };
}

function errorResponse(status: number, codes: ErrorCode[], scope: string | undefined): Operation {
  const named = codes.map((code) => {
    if (code !== 'INSUFFICIENT_SCOPE') return code;
    return scope && scope !== ANY_SCOPE ? `${code} (requires ${scope})` : `${code} (a credential holding no scope)`;
  });
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const code of codes) {
    const value = exampleBody(code);
    if (code === 'INSUFFICIENT_SCOPE' && scope && scope !== ANY_SCOPE) {
      value.error.message = `This request requires the ${scope} scope.`;
      value.error.details = { required_scope: scope };
    }
    examples[code] = { summary: code, value };
  }
  return {
    description: `${named.join(', ')}.`,
    ...(status === 429 && {
      headers: {
        'Retry-After': {
          description: 'Seconds until the window resets.',
          schema: { type: 'integer', format: 'int32', minimum: 0, maximum: RATE_LIMIT_WINDOW_SECONDS, example: 12 },
        },
      },
    }),
    ...(status === 503 &&
      codes.includes('SHUTTING_DOWN') && {
        headers: {
          'Retry-After': {
            description: 'Seconds to wait before retrying (SHUTTING_DOWN, DATABASE_UNAVAILABLE).',
            schema: { type: 'integer', example: 1 },
          },
        },
      }),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` }, examples } },
  };
}

/**
 * A path parameter parsed by its own pipe (VersionNumberPipe) is published with the schema the
 * pipe declares (`static openApiSchema`), not with the type a compiler happens to reflect for the
 * handler's argument (tsc and swc disagree on a branded number, so the document differed between
 * the built server and the test run).
 */
function describeParsedPathParameters({ controller, name }: Handler, path: string, operation: Operation): void {
  const args: Record<string, { data?: unknown; pipes?: unknown[] }> =
    Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {};
  for (const { data, pipes = [] } of Object.values(args)) {
    const schema = pipes
      .map((pipe) => {
        const declared = pipe as { openApiSchema?: object; constructor?: { openApiSchema?: object } } | undefined;
        return declared?.openApiSchema ?? declared?.constructor?.openApiSchema;
      })
      .find((declared) => declared !== undefined);
    if (typeof data !== 'string' || !schema) continue;
    const parameters: Operation[] = (operation.parameters ??= []);
    const parameter = parameters.find((candidate) => candidate.in === 'path' && candidate.name === data);
    if (parameter) {
      parameter.schema = { ...schema };
      continue;
    }
    // Swagger leaves out a path argument it reflects as Object (swc's view of the branded type):
    // insert it after the path parameter that precedes it in the URL.
    const names = [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]);
    const before = names.slice(0, names.indexOf(data)).reverse();
    const after = before
      .map((previous) => parameters.findIndex((candidate) => candidate.in === 'path' && candidate.name === previous))
      .find((index) => index >= 0);
    parameters.splice(after === undefined ? 0 : after + 1, 0, { name: data, required: true, in: 'path', schema: { ...schema } });
  }
}

/**
 * Swagger UI fills "Try it out" with each parameter's example: an example filter (a customer id
 * that does not exist, a date range) would narrow an explorer's first list to nothing. Optional
 * query filters show their example in the description instead; `limit` keeps its (valid) one.
 */
function unfillOptionalFilters(operation: Operation): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query' || parameter.required || parameter.name === 'limit' || parameter.schema?.example === undefined)
      continue;
    const example = parameter.schema.example;
    delete parameter.schema.example;
    // "Add item" on an array fills in its items' example rather than the word "string".
    if (Array.isArray(example) && parameter.schema.items)
      parameter.schema.items = { ...parameter.schema.items, example: example[0] };
    const shown = `Example: \`${typeof example === 'string' ? example : JSON.stringify(example)}\`.`;
    parameter.description = parameter.description ? `${String(parameter.description).replace(/\.?$/, '.')} ${shown}` : shown;
  }
}

/**
 * The IETF draft headers the rate limiter (configure-app.ts, rate-limiter.ts) sets on every answer
 * of a limited route, success or refusal, before the handler runs; absent only when limiting is
 * switched off (RATE_LIMIT_PER_MINUTE=0).
 */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The quota: `"<policy>";q=<requests>;w=<window seconds>`, one item per policy (a preview, or a thumbnail that had to be rendered, adds the organization’s render budget `"pdf_preview"`).',
    schema: {
      type: 'string',
      maxLength: 200,
      pattern: '^"[a-z_]+";q=\\d+;w=\\d+(, *"[a-z_]+";q=\\d+;w=\\d+)*$',
      example: '"default";q=1000;w=60',
    },
  },
  RateLimit: {
    description: 'What is left: `"<policy>";r=<remaining>;t=<seconds until reset>`.',
    schema: {
      type: 'string',
      maxLength: 200,
      pattern: '^"[a-z_]+";r=\\d+;t=\\d+(, *"[a-z_]+";r=\\d+;t=\\d+)*$',
      example: '"default";r=998;t=42',
    },
  },
};

/** Referenced from every response of a limited route (defined once under components.headers). */
const RATE_LIMIT_HEADER_REFS = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

function addRateLimitHeaders(operation: Operation): void {
  for (const [status, response] of Object.entries<Operation>(operation.responses)) {
    if (/^[24]/.test(status)) response.headers = { ...RATE_LIMIT_HEADER_REFS, ...response.headers };
  }
}

/** Set on every answer (configure-app.ts). */
const NOSNIFF_HEADER = {
  'X-Content-Type-Options': {
    description: 'Always `nosniff`: the body is only ever what its Content-Type says.',
    schema: { type: 'string', enum: ['nosniff'], example: 'nosniff' },
  },
};

function addNosniffHeader(operation: Operation): void {
  for (const response of Object.values<Operation>(operation.responses)) {
    response.headers = { ...response.headers, 'X-Content-Type-Options': { $ref: '#/components/headers/X-Content-Type-Options' } };
  }
}

export const IDEMPOTENCY_KEY_EXAMPLE = '5b0e7a7e-3c1f-4d2a-9e8b-6f4a2d1c0b9e';

function addIdempotencyKeyHeader(operation: Operation, rule: IdempotencyKeyRule): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: rule === 'required',
      description:
        'A unique key per logical request (a UUID will do), 1–255 printable ASCII characters. A retry with the same key and ' +
        'body replays the first answer (`Idempotent-Replayed: true`); the same key with another body is a 422.',
      // Swagger UI pre-fills it; its page sends a fresh key in place of this example on every Execute (swagger-ui-page.ts).
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$', example: IDEMPOTENCY_KEY_EXAMPLE },
    },
  ];
}
