import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock, SharedErrors } from '@app/shared-kernel';
import { PaymentEvent } from '../../domain/payment-provider';
import { PaymentProviders } from '../payment-providers';
import { ProcessPaymentWebhookCommand } from './process-payment-webhook.command';
import { TopUpSettlement } from './top-up-settlement';
import { TopUpStore } from './top-up.store';

@CommandHandler(ProcessPaymentWebhookCommand)
export class ProcessPaymentWebhookHandler implements ICommandHandler<ProcessPaymentWebhookCommand> {
  constructor(
    private readonly providers: PaymentProviders,
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /**
   * Verified before anything is stored; the (provider, event id) key makes redelivery a no-op.
   * A verified event is always acknowledged: the top-up it names reaches a terminal state
   * (credited, or failed and refunded), so the provider has nothing left to retry.
   */
  @Transactional()
  async execute({ provider: name, rawBody, signature }: ProcessPaymentWebhookCommand): Promise<{ duplicate: boolean }> {
    const provider = this.providers.named(name);
    if (!provider) throw SharedErrors.UNKNOWN_PROVIDER.create(`No payment provider named ${name}.`);
    const event: PaymentEvent = provider.verifyWebhook(rawBody, signature);
    const inserted = await this.txHost.tx.query(
      `INSERT INTO payment_webhook_events (provider, event_id, type, payload, received_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [name, event.id, event.type, rawBody, this.clock.now()],
    );
    if (inserted.length === 0) return { duplicate: true };
    const topUp = await this.topUps.lock(event.topUpId);
    if (!topUp) return { duplicate: false };
    if (event.type === 'top_up.succeeded') await this.settlement.succeed(topUp, { provider, reference: event.providerReference });
    else {
      await this.settlement.fail(topUp, {
        providerReference: event.providerReference,
        failureCode: event.failureCode ?? 'payment_failed',
        failureMessage: event.failureMessage ?? 'The payment failed.',
      });
    }
    return { duplicate: false };
  }
}
