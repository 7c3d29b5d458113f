import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiHeader, ApiNotFoundResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { isOrganizationLevel, type Scope } from '@app/identity';
import { ErrorBodyDto } from '../error-body.dto';

export const REQUIRED_SCOPE = 'billing:required-scope';
export const PUBLIC_ROUTE = 'billing:public-route';
export const ANY_SCOPE = '*';

/** The one place a route declares who may call it; the AuthGuard enforces it. */
export function RequireScope(scope: Scope): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiBearerAuth('bearer'),
    ApiHeader({
      name: 'X-Workspace-Id',
      required: false,
      description: "Workspace UUID or slug; omitted selects the organization's default workspace of the key's mode.",
    }),
    ApiUnauthorizedResponse({ type: ErrorBodyDto, description: 'UNAUTHENTICATED, API_KEY_REVOKED or API_KEY_EXPIRED.' }),
    ApiForbiddenResponse({
      type: ErrorBodyDto,
      description:
        `IP_NOT_ALLOWED, WORKSPACE_FORBIDDEN, WORKSPACE_MODE_MISMATCH` +
        (isOrganizationLevel(scope) ? ', SANDBOX_PRINCIPAL_FORBIDDEN (organization-level: live principals only)' : '') +
        ` or INSUFFICIENT_SCOPE (requires ${scope}).`,
    }),
    ApiNotFoundResponse({ type: ErrorBodyDto, description: 'WORKSPACE_NOT_FOUND, or the resource is unknown or not yours.' }),
  );
}

/** Any authenticated principal holding at least one scope (sign-out, the scope catalog). */
export function RequireAuthentication(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, ANY_SCOPE),
    ApiBearerAuth('bearer'),
    ApiUnauthorizedResponse({ type: ErrorBodyDto, description: 'UNAUTHENTICATED, API_KEY_REVOKED or API_KEY_EXPIRED.' }),
    ApiForbiddenResponse({
      type: ErrorBodyDto,
      description: 'IP_NOT_ALLOWED, WORKSPACE_* or INSUFFICIENT_SCOPE (a key without scopes).',
    }),
  );
}

/** Routes anyone may call: health, sign-in, provider webhooks (which verify their own signature). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_ROUTE, true);
}
