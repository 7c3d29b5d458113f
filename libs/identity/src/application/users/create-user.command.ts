import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { UserView } from './user.view';

export class CreateUserCommand extends Command<UserView> {
  constructor(
    readonly actor: Actor,
    readonly input: { email: unknown; password: unknown; role: unknown },
  ) {
    super();
  }
}
