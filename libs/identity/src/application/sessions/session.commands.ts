import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface SessionView {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
}

export class CreateSessionCommand extends Command<SessionView> {
  constructor(
    readonly email: unknown,
    readonly password: unknown,
  ) {
    super();
  }
}

export class EndSessionCommand extends Command<void> {
  constructor(readonly actor: Actor) {
    super();
  }
}
