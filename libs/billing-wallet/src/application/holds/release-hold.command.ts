import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';

export class ReleaseHoldCommand extends Command<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly holdId: string,
  ) {
    super();
  }
}
