import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { newId, SharedErrors } from '@app/shared-kernel';
import { ProcessPaymentWebhookCommand } from './process-payment-webhook.command';
import { ProcessPaymentWebhookHandler } from './process-payment-webhook.handler';
import { SandboxWebhooks } from './sandbox-webhooks';
import { SettleSandboxTopUpCommand } from './settle-sandbox-top-up.command';
import { TopUpStore } from './top-up.store';
import { TopUpView } from './top-up.view';
import { WalletErrors } from '../../domain/wallet-errors';

@CommandHandler(SettleSandboxTopUpCommand)
export class SettleSandboxTopUpHandler implements ICommandHandler<SettleSandboxTopUpCommand> {
  constructor(
    private readonly sandbox: SandboxWebhooks,
    private readonly topUps: TopUpStore,
    private readonly webhooks: ProcessPaymentWebhookHandler,
  ) {}

  /** Sandbox workspaces only: the provider reports, through its signed webhook, what the test asks. */
  @Transactional()
  async execute({ actor, topUpId, outcome }: SettleSandboxTopUpCommand): Promise<TopUpView> {
    if (actor.workspaceMode !== 'sandbox') {
      throw SharedErrors.SANDBOX_ONLY.create('Test helpers work in sandbox workspaces only.');
    }
    const topUp = await this.topUps.lock(topUpId, actor);
    if (!topUp) throw WalletErrors.TOP_UP_NOT_FOUND.create('No such top-up.', { param: 'id' });
    if (topUp.view.status !== 'pending') {
      throw SharedErrors.INVALID_STATUS_TRANSITION.create(`This top-up is already ${topUp.view.status}.`, {
        details: { from: topUp.view.status, to: outcome === 'succeed' ? 'succeeded' : 'failed', allowed: [] },
      });
    }
    const { body, signature } = this.sandbox.signedEvent({
      id: `evt_${newId()}`,
      type: outcome === 'succeed' ? 'top_up.succeeded' : 'top_up.failed',
      topUpId,
      providerReference: `ch_sandbox_${topUpId}`,
      failureCode: outcome === 'fail' ? 'card_declined' : undefined,
      failureMessage: outcome === 'fail' ? 'Your card was declined.' : undefined,
    });
    await this.webhooks.execute(new ProcessPaymentWebhookCommand(this.sandbox.name, body, signature));
    return (await this.topUps.lock(topUpId, actor))!.view;
  }
}
