import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TopUpView } from './top-up.view';

/** Sandbox test helper: the provider reports the pending top-up as succeeded or failed. */
export class SettleSandboxTopUpCommand extends Command<TopUpView> {
  constructor(
    readonly actor: Actor,
    readonly topUpId: string,
    readonly outcome: 'succeed' | 'fail',
  ) {
    super();
  }
}
