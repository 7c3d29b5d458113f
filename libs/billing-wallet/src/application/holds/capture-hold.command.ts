import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';

export class CaptureHoldCommand extends Command<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly holdId: string,
    readonly amount: unknown,
  ) {
    super();
  }
}
