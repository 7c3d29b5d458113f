import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader } from '@nestjs/swagger';
import type { Scope } from '@app/identity';

export const REQUIRED_SCOPE = 'billing:required-scope';
export const PUBLIC_ROUTE = 'billing:public-route';
export const ANY_SCOPE = '*';

/**
 * The one place a route declares who may call it; the AuthGuard enforces it, and the OpenAPI
 * builder (route-docs.ts) documents its 401/403/404 answers from the same metadata.
 */
export function RequireScope(scope: Scope): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiBearerAuth('bearer'),
    ApiHeader({
      name: 'X-Workspace-Id',
      required: false,
      description: "Workspace UUID or slug; omitted selects the organization's default workspace of the key's mode.",
    }),
  );
}

/** Any authenticated principal holding at least one scope (sign-out, the scope catalog). */
export function RequireAuthentication(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(REQUIRED_SCOPE, ANY_SCOPE), ApiBearerAuth('bearer'));
}

/** Routes anyone may call: health, sign-in, provider webhooks (which verify their own signature). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_ROUTE, true);
}
