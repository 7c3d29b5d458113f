import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { WalletSettingsInput } from './settings-input';

export class UpdateWalletSettingsCommand extends Command<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly currency: string | undefined,
    readonly settings: WalletSettingsInput,
  ) {
    super();
  }
}
