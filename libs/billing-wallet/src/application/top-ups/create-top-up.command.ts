import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TopUpView } from './top-up.view';

export class CreateTopUpCommand extends Command<TopUpView> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly input: { mode?: string; paymentMethodId?: string; amount?: string },
  ) {
    super();
  }
}
