import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { WalletSettingsInput } from './settings-input';

export class CreateWalletCommand extends Command<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly input: { customerId: string; currency: unknown; settings: WalletSettingsInput },
  ) {
    super();
  }
}
