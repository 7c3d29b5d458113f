import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Actor } from '@app/shared-kernel';
import { AuthenticatedRequest } from './auth.guard';

/** The authenticated caller and workspace of the request (set by the AuthGuard). */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  const actor = context.switchToHttp().getRequest<AuthenticatedRequest>().actor;
  if (!actor) throw new Error('CurrentActor used on a route without authentication');
  return actor;
});
