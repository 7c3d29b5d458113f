import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface TopUpView {
  id: string;
  walletId: string;
  mode: 'hosted_checkout' | 'off_session';
  automatic: boolean;
  amount: string;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  paymentMethodId: string | null;
  checkoutUrl: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  transactionId: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

export interface PaymentMethodView {
  id: string;
  customerId: string;
  provider: string;
  brand: string;
  last4: string;
  createdAt: Date;
}

export class AttachPaymentMethodCommand extends Command<PaymentMethodView> {
  constructor(
    readonly actor: Actor,
    readonly customerId: string,
    readonly token: string,
  ) {
    super();
  }
}

export class CreateTopUpCommand extends Command<TopUpView> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly input: { mode?: string; paymentMethodId?: string; amount?: string },
  ) {
    super();
  }
}

/** A provider's signed report; a duplicate delivery changes nothing. */
export class ProcessPaymentWebhookCommand extends Command<{ duplicate: boolean }> {
  constructor(
    readonly provider: string,
    readonly rawBody: string,
    readonly signature: string | undefined,
  ) {
    super();
  }
}

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
