import { Injectable } from '@nestjs/common';
import { AuditLog, Clock, DomainError, Money } from '@app/shared-kernel';
import { PaymentProvider } from '../../domain/payment-provider';
import { WalletRepository } from '../../domain/wallet.repository';
import { StoredTopUp, TopUpStore } from './top-up.store';
import { walletNotFound } from '../wallet-keys';
import { topUpResponse } from '../transaction-response';
import { ledgerEvents, WalletEvents } from '../wallet-events';

const SYSTEM = { type: 'system', id: null };

/** A payment the provider settled: who took it and under which reference. */
export interface SettledPayment {
  provider: PaymentProvider;
  reference: string;
}

export interface TopUpFailure {
  providerReference: string | null;
  failureCode: string;
  failureMessage: string;
}

/** A refusal as a top-up's failure: the code in the provider's lower-case style, the message as is. */
export function failureOf(error: DomainError, providerReference: string | null = null): TopUpFailure {
  return { providerReference, failureCode: error.code.toLowerCase(), failureMessage: error.message };
}

/**
 * Brings a top-up to its terminal state, once: credited when the provider reports it paid, or
 * failed with a reason. A paid top-up the wallet can no longer take (its limits changed since it
 * was created) is refunded through the provider and fails with the reason: money the customer
 * paid is never left pending.
 */
@Injectable()
export class TopUpSettlement {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly topUps: TopUpStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  async succeed(topUp: StoredTopUp, payment: SettledPayment): Promise<StoredTopUp> {
    if (topUp.view.status === 'succeeded') return topUp;
    // Paid after it was reported failed: the customer's money goes back, the top-up stays failed.
    if (topUp.view.status === 'failed') {
      await this.refundPayment(
        topUp,
        payment,
        'TOP_UP_ALREADY_FAILED',
        'The top-up had already failed when its payment succeeded.',
      );
      return topUp;
    }
    const wallet = await this.wallets.lock(topUp.key);
    if (!wallet) throw walletNotFound();
    const availableBefore = wallet.availableBalance;
    const now = this.clock.now();
    let entryId: string;
    try {
      entryId = wallet.credit({
        amount: Money.of(topUp.view.amount, topUp.view.currency),
        source: 'PAYMENT',
        reason: topUp.view.automatic ? 'automatic top-up' : 'top-up',
        reference: `top_up:${topUp.view.id}`,
        createdBy: SYSTEM,
        now,
      }).id;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'rule_violation') return this.refund(topUp, payment, error);
      throw error;
    }
    const ledger = ledgerEvents({ wallet, availableBefore });
    await this.wallets.save(wallet);
    const settled = await this.topUps.settle(
      topUp.key,
      topUp.view.id,
      { status: 'succeeded', transactionId: entryId, providerReference: payment.reference },
      now,
    );
    await this.record(topUp, 'wallet_top_up.succeeded');
    // The credit's ledger line, then the top-up as settled; the last statement of the settlement.
    await this.events.publish(topUp.key, [...ledger, { type: 'wallet.top_up.succeeded', object: topUpResponse(settled.view) }]);
    return settled;
  }

  async fail(topUp: StoredTopUp, outcome: TopUpFailure): Promise<StoredTopUp> {
    if (topUp.view.status !== 'pending') return topUp;
    const settled = await this.topUps.settle(topUp.key, topUp.view.id, { status: 'failed', ...outcome }, this.clock.now());
    await this.record(topUp, 'wallet_top_up.failed', { failure_code: outcome.failureCode });
    await this.events.publish(topUp.key, [{ type: 'wallet.top_up.failed', object: topUpResponse(settled.view) }]);
    return settled;
  }

  private async refund(topUp: StoredTopUp, payment: SettledPayment, reason: DomainError): Promise<StoredTopUp> {
    await this.refundPayment(topUp, payment, reason.code, reason.message);
    const failure = failureOf(reason, payment.reference);
    return this.fail(topUp, { ...failure, failureMessage: `${failure.failureMessage} The payment was refunded.` });
  }

  private async refundPayment(topUp: StoredTopUp, payment: SettledPayment, code: string, message: string): Promise<void> {
    const amount = Money.of(topUp.view.amount, topUp.view.currency);
    const { refundReference } = await payment.provider.refund(topUp.view.id, payment.reference, amount, message);
    await this.record(topUp, 'wallet_top_up.refunded', {
      refund_reference: refundReference,
      provider_reference: payment.reference,
      amount: amount.toString(),
      currency: amount.currency,
      reason: code,
    });
  }

  private record(topUp: StoredTopUp, action: string, data: Record<string, unknown> = {}): Promise<void> {
    return this.audit.record(
      { organizationId: topUp.key.organizationId, workspaceId: topUp.key.workspaceId, principal: SYSTEM },
      { action, resourceType: 'wallet_top_up', resourceId: topUp.view.id, data: { wallet_id: topUp.key.walletId, ...data } },
    );
  }
}
