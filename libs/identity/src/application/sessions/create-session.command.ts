import { Command } from '@nestjs/cqrs';

export interface SessionView {
  id: string;
  token: string;
  userId: string;
  organizationId: string;
  expiresAt: Date;
}

export class CreateSessionCommand extends Command<SessionView> {
  constructor(
    readonly email: unknown,
    readonly password: unknown,
    /** Required for every user but those who signed in before addresses were unique per organization. */
    readonly organizationId: unknown,
    /** The client's address (TRUST_PROXY applied): sign-in is throttled per address too. */
    readonly clientAddress: string,
  ) {
    super();
  }
}
