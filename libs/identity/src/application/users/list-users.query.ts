import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { UserView } from './user.view';

export class ListUsersQuery extends Query<Page<UserView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
