import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';

export class MakePrimaryWalletCommand extends Command<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
  ) {
    super();
  }
}
