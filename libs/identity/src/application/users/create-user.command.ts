import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { Role } from '../../domain/scopes';

export interface UserView {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
}

export class CreateUserCommand extends Command<UserView> {
  constructor(
    readonly actor: Actor,
    readonly input: { email: unknown; password: unknown; role: unknown },
  ) {
    super();
  }
}

export class ListUsersQuery extends Query<Page<UserView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
