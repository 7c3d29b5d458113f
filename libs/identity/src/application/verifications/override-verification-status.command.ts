import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { VerificationView } from './verification.view';

/** Admin override: only a permitted transition; the same status changes nothing. */
export class OverrideVerificationStatusCommand extends Command<VerificationView> {
  constructor(
    readonly actor: Actor,
    readonly verificationId: string,
    readonly status: unknown,
  ) {
    super();
  }
}
