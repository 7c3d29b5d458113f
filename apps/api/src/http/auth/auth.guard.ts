import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { Reflector } from '@nestjs/core';
import { AuthenticateRequestQuery } from '@app/identity';
import { Actor, DomainError } from '@app/shared-kernel';
import { FastifyRequest } from 'fastify';
import { ANY_SCOPE, PUBLIC_ROUTE, REQUIRED_SCOPE } from './route-access';

export type AuthenticatedRequest = FastifyRequest & { actor?: Actor };

/**
 * Every route is protected unless marked @Public: authenticate (401, IP 403, workspace 404/403),
 * then the route's declared scope (403). A route that declares nothing is refused (fail closed).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly queries: QueryBus,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const workspace = request.headers['x-workspace-id'];
    const actor = await this.queries.execute(
      new AuthenticateRequestQuery(
        request.headers.authorization,
        request.ip,
        typeof workspace === 'string' ? workspace : undefined,
      ),
    );
    const scope = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, targets);
    const allowed =
      scope === ANY_SCOPE ? actor.principal.scopes.size > 0 : scope !== undefined && actor.principal.scopes.has(scope);
    if (!allowed) {
      throw new DomainError(
        'forbidden',
        'INSUFFICIENT_SCOPE',
        scope && scope !== ANY_SCOPE
          ? `This request requires the ${scope} scope.`
          : 'This credential holds no scope that reaches this route.',
        {
          details: { required_scope: scope ?? null },
        },
      );
    }
    request.actor = actor;
    return true;
  }
}
