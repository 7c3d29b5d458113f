import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter, Money, newId } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { PaymentMethodStore } from '../payment-methods/payment-method.store';
import { assertPaymentMethodOf } from '../payment-methods/payment-method-reference';
import { PaymentProviders } from '../payment-providers';
import { topUpResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { keyOf, walletNotFound } from '../wallet-keys';
import { CreateTopUpCommand } from './create-top-up.command';
import { TopUpSettlement } from './top-up-settlement';
import { TopUpStore } from './top-up.store';
import { TopUpView } from './top-up.view';
import { WalletErrors } from '../../domain/wallet-errors';

@CommandHandler(CreateTopUpCommand)
export class CreateTopUpHandler implements ICommandHandler<CreateTopUpCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly providers: PaymentProviders,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  /** Everything that can refuse comes before money moves: the wallet, the amount, its limits, the method, the provider. */
  @Transactional()
  async execute({ actor, walletId, input }: CreateTopUpCommand): Promise<TopUpView> {
    const mode = input.mode ?? 'hosted_checkout';
    if (mode !== 'hosted_checkout' && mode !== 'off_session') {
      throw invalidParameter('mode', 'INVALID_VALUE', 'mode must be hosted_checkout or off_session.');
    }
    const key = keyOf(actor, walletId);
    const wallet = await this.wallets.lock(key);
    if (!wallet) throw walletNotFound();
    const amount = this.amountOf(input.amount, wallet);
    wallet.assertCreditAllowed(amount);
    let paymentMethodId: string | null = null;
    if (mode === 'off_session') {
      if (!input.paymentMethodId)
        throw invalidParameter('payment_method_id', 'REQUIRED', 'payment_method_id is required for off_session top-ups.');
      await assertPaymentMethodOf(this.paymentMethods, wallet.snapshot, input.paymentMethodId, 'payment_method_id');
      paymentMethodId = input.paymentMethodId;
    }
    const provider = this.providers.forWorkspace(actor.workspaceMode);
    const id = newId();
    const checkout = mode === 'hosted_checkout' ? await provider.openCheckout(id, amount) : undefined;
    const topUp = (await this.topUps.insert(key, {
      id,
      mode,
      automatic: false,
      amount,
      paymentMethodId,
      provider: provider.name,
      providerReference: checkout?.providerReference ?? null,
      checkoutUrl: checkout?.checkoutUrl ?? null,
      now: this.clock.now(),
    }))!;
    await this.audit.record(actor, {
      action: 'wallet_top_up.created',
      resourceType: 'wallet_top_up',
      resourceId: id,
      data: { wallet_id: walletId, mode },
    });
    await this.events.publish(actor, [{ type: 'wallet.top_up.created', object: topUpResponse(topUp.view) }]);
    if (!paymentMethodId) return topUp.view;
    const charge = await provider.chargeOffSession(id, amount, paymentMethodId);
    if (charge.status === 'failed') {
      throw WalletErrors.PAYMENT_FAILED.create(charge.failureMessage, {
        details: { failure_code: charge.failureCode },
      });
    }
    return (await this.settlement.succeed(topUp, { provider, reference: charge.providerReference })).view;
  }

  private amountOf(value: string | undefined, wallet: Wallet): Money {
    if (value !== undefined) {
      const amount = Money.parse(value, wallet.snapshot.currency, 'amount');
      if (!amount.isPositive()) throw invalidParameter('amount', 'OUT_OF_RANGE', 'amount must be greater than zero.');
      return amount;
    }
    const fallback = wallet.snapshot.autoTopup.amount;
    if (!fallback) throw invalidParameter('amount', 'REQUIRED', 'amount is required when the wallet has no auto_topup_amount.');
    return fallback;
  }
}
