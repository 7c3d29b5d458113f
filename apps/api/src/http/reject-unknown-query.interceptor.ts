import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';
import { validationFailed } from './validation';

/**
 * Query parameters are declared by a DTO bound with `@Query()`, which the validation pipe
 * whitelists. A route that declares none must still refuse unknown parameters (contract §1).
 */
@Injectable()
export class RejectUnknownQueryInterceptor implements NestInterceptor {
  private readonly declaresQuery = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http' && !this.routeDeclaresQuery(context)) {
      const query = context.switchToHttp().getRequest<FastifyRequest>().query as Record<string, unknown> | undefined;
      const unknown = Object.keys(query ?? {});
      if (unknown.length > 0) {
        throw validationFailed(
          unknown.map((param) => ({ param, code: 'UNKNOWN_PARAMETER', message: `Unknown parameter: ${param}.` })),
        );
      }
    }
    return next.handle();
  }

  private routeDeclaresQuery(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let declares = this.declaresQuery.get(handler);
    if (declares === undefined) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as Record<string, unknown>;
      declares = Object.keys(args).some((key) => Number(key.split(':')[0]) === RouteParamtypes.QUERY);
      this.declaresQuery.set(handler, declares);
    }
    return declares;
  }
}
