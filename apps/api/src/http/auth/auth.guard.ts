import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { Reflector } from '@nestjs/core';
import { AuthenticateRequestQuery, isOrganizationLevel, Scope } from '@app/identity';
import { Actor } from '@app/shared-kernel';
import { FastifyReply, FastifyRequest } from 'fastify';
import { principalKey } from '../rate-limiter';
import { RequestRateLimit } from '../request-rate-limit';
import { ANY_SCOPE, PUBLIC_ROUTE, REQUIRED_SCOPE } from './route-access';
import { HttpErrors } from '../http-errors';

export type AuthenticatedRequest = FastifyRequest & { actor?: Actor };

/** What a route declares about access: read from its decorators once, not on every request. */
interface RouteAccess {
  readonly isPublic: boolean;
  readonly scope: string | undefined;
}

/**
 * Every route is protected unless marked @Public: authenticate (401, IP 403, workspace 404/403),
 * then the route's declared scope (403). A route that declares nothing is refused (fail closed).
 * A sandbox principal (a sk_test key, or a session acting in a sandbox workspace) never reaches an
 * organization-level route: the reach is the scope's resource's, so no route can forget it.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly queries: QueryBus,
    private readonly rateLimit: RequestRateLimit,
  ) {}

  /** By handler, then by controller class (a handler inherited by two controllers may be declared differently by each). */
  private readonly routes = new WeakMap<object, WeakMap<object, RouteAccess>>();

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byClass = this.routes.get(handler);
    if (byClass === undefined) this.routes.set(handler, (byClass = new WeakMap()));
    let access = byClass.get(controller);
    if (access === undefined) {
      const targets = [handler, controller];
      access = {
        isPublic: Boolean(this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)),
        scope: this.reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, targets),
      };
      byClass.set(controller, access);
    }
    return access;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.accessOf(context);
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    if (access.isPublic) {
      this.rateLimit.countAddress(request, reply);
      return true;
    }
    const actor = await this.authenticate(request, reply);
    this.rateLimit.count(request, reply, principalKey(actor));
    const { scope } = access;
    const allowed =
      scope === ANY_SCOPE ? actor.principal.scopes.size > 0 : scope !== undefined && actor.principal.scopes.has(scope);
    if (!allowed) {
      throw HttpErrors.INSUFFICIENT_SCOPE.create(
        scope && scope !== ANY_SCOPE
          ? `This request requires the ${scope} scope.`
          : 'This credential holds no scope that reaches this route.',
        {
          details: { required_scope: scope ?? null },
        },
      );
    }
    if (scope !== ANY_SCOPE && actor.workspaceMode === 'sandbox' && isOrganizationLevel(scope as Scope)) {
      throw HttpErrors.SANDBOX_PRINCIPAL_FORBIDDEN.create(
        'A sandbox principal cannot reach organization-level resources (users, workspaces, the audit log); use a live credential.',
        { details: { required_scope: scope, workspace_mode: 'sandbox' } },
      );
    }
    request.actor = actor;
    return true;
  }

  /** A refused credential counts against the client address: guessing tokens is throttled like any anonymous flood. */
  private async authenticate(request: AuthenticatedRequest, reply: FastifyReply): Promise<Actor> {
    const workspace = request.headers['x-workspace-id'];
    try {
      return await this.queries.execute(
        new AuthenticateRequestQuery(
          request.headers.authorization,
          request.ip,
          typeof workspace === 'string' ? workspace : undefined,
        ),
      );
    } catch (error) {
      this.rateLimit.countAddress(request, reply);
      throw error;
    }
  }
}
