import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { VerificationView } from './verification.view';

/** Sandbox test helper: a check of the sandbox provider, opened in the status the test chooses. */
export class CreateSandboxVerificationCommand extends Command<VerificationView> {
  constructor(
    readonly actor: Actor,
    readonly input: { customerId: string; verificationType: unknown; status?: unknown; expiresAt?: Date },
  ) {
    super();
  }
}
