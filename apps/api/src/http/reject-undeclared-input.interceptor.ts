import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { FieldError } from '@app/shared-kernel';
import { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { validationFailed } from './validation';

export interface DeclaredInput {
  query: boolean;
  /** A `@Body()` DTO, the raw request (signed webhooks read the bytes themselves), or nothing. */
  body: 'dto' | 'raw' | 'none';
}

/**
 * Query parameters and body fields are declared by DTOs bound with `@Query()` and `@Body()`,
 * which the validation pipe whitelists. A route that declares none must still refuse what it
 * was sent (contract §1): unknown query parameters, and any body but an empty object — else
 * `{"held_balance": …}` sent to a body-less action would pass unnoticed. A body is a JSON
 * object everywhere: the pipe does not validate `null` (a capture sent `null` took the whole hold).
 * Keys named after a member of `Object.prototype` (`constructor`, `toString`, `valueOf`, …) or
 * `prototype` are refused at any depth of the query and of a JSON body: class-transformer skips
 * them without a word (`?valueOf=1` or `{"constructor": 1}` passed as if absent, and a metadata
 * key `constructor` was silently dropped), and code reading `object[key]` would find the
 * prototype's member instead of nothing.
 */
@Injectable()
export class RejectUndeclaredInputInterceptor implements NestInterceptor {
  private readonly declared = new WeakMap<object, DeclaredInput>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const declared = this.declaredInput(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const errors: FieldError[] = [];
    if (!declared.query) {
      for (const param of Object.keys((request.query as Record<string, unknown> | undefined) ?? {})) {
        errors.push({ param, code: 'UNKNOWN_PARAMETER', message: `Unknown parameter: ${param}.` });
      }
    }
    errors.push(...reservedKeys(request.query, 'query'));
    if (declared.body !== 'raw') errors.push(...reservedKeys(request.body, 'body'));
    if (declared.body === 'none') errors.push(...undeclaredBody(request.body));
    if (declared.body === 'dto' && !isBodyObject(request.body)) errors.push(NOT_AN_OBJECT);
    if (errors.length > 0) throw validationFailed(errors);
    return next.handle();
  }

  private declaredInput(context: ExecutionContext): DeclaredInput {
    const handler = context.getHandler();
    let declared = this.declared.get(handler);
    if (declared === undefined) {
      declared = declaredInputOf(context.getClass(), handler);
      this.declared.set(handler, declared);
    }
    return declared;
  }
}

/** What a route handler binds: a query DTO, a body DTO or the raw request. Also read by the OpenAPI builder. */
export function declaredInputOf(controller: object, handler: { name: string }): DeclaredInput {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, unknown>;
  const types = Object.keys(args).map((key) => Number(key.split(':')[0]));
  return {
    query: types.includes(RouteParamtypes.QUERY),
    body: types.some((type) => type === RouteParamtypes.REQUEST || type === RouteParamtypes.RAW_BODY)
      ? 'raw'
      : types.includes(RouteParamtypes.BODY)
        ? 'dto'
        : 'none',
  };
}

const NOT_AN_OBJECT: FieldError = { param: 'body', code: 'INVALID_TYPE', message: 'The request body must be a JSON object.' };

function isBodyObject(body: unknown): boolean {
  return body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body));
}

const RESERVED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Every reserved key of a parsed query or body, at any depth (the parser bounds the depth), as a field error. */
function reservedKeys(input: unknown, root: 'query' | 'body'): FieldError[] {
  const errors: FieldError[] = [];
  const pending: Array<{ value: unknown; path: string }> = [{ value: input, path: '' }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    for (const [key, child] of Object.entries(item.value)) {
      const path = Array.isArray(item.value) ? `${item.path}[${key}]` : item.path ? `${item.path}.${key}` : key;
      if (!Array.isArray(item.value) && RESERVED_KEYS.has(key))
        errors.push({
          param: path,
          code: 'RESERVED_KEY',
          message: `${path || root}: "${key}" is not accepted as a ${root === 'query' ? 'parameter' : 'key'} name.`,
        });
      pending.push({ value: child, path });
    }
  }
  return errors;
}

function undeclaredBody(body: unknown): FieldError[] {
  if (!isBodyObject(body)) return [NOT_AN_OBJECT];
  return Object.keys(body ?? {}).map((param) => ({ param, code: 'UNKNOWN_PARAMETER', message: `Unknown parameter: ${param}.` }));
}
