import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { FieldError } from '@app/shared-kernel';
import { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { validationFailed } from './validation';

interface DeclaredInput {
  query: boolean;
  /** A `@Body()` DTO, or the raw request (signed webhooks read the bytes themselves). */
  body: boolean;
}

/**
 * Query parameters and body fields are declared by DTOs bound with `@Query()` and `@Body()`,
 * which the validation pipe whitelists. A route that declares none must still refuse what it
 * was sent (contract §1): unknown query parameters, and any body but an empty object — else
 * `{"held_balance": …}` sent to a body-less action would pass unnoticed.
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
    if (!declared.body) errors.push(...undeclaredBody(request.body));
    if (errors.length > 0) throw validationFailed(errors);
    return next.handle();
  }

  private declaredInput(context: ExecutionContext): DeclaredInput {
    const handler = context.getHandler();
    let declared = this.declared.get(handler);
    if (declared === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      const types = Object.keys(args).map((key) => Number(key.split(':')[0]));
      declared = {
        query: types.includes(RouteParamtypes.QUERY),
        body: types.some((type) => [RouteParamtypes.BODY, RouteParamtypes.REQUEST, RouteParamtypes.RAW_BODY].includes(type)),
      };
      this.declared.set(handler, declared);
    }
    return declared;
  }
}

function undeclaredBody(body: unknown): FieldError[] {
  if (body === undefined) return [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return [{ param: 'body', code: 'INVALID_TYPE', message: 'This route takes no body, or an empty JSON object.' }];
  }
  return Object.keys(body).map((param) => ({ param, code: 'UNKNOWN_PARAMETER', message: `Unknown parameter: ${param}.` }));
}
