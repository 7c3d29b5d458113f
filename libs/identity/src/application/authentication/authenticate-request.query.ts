import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

/** Who is calling, from where, on which workspace: the first step of every protected route. */
export class AuthenticateRequestQuery extends Query<Actor> {
  constructor(
    readonly authorization: string | undefined,
    readonly ip: string,
    readonly workspace: string | undefined,
  ) {
    super();
  }
}
