import { Money } from '@app/shared-kernel';

export interface AttachedPaymentMethod {
  id: string;
  brand: string;
  last4: string;
}

export type ChargeOutcome =
  | { status: 'succeeded'; providerReference: string }
  | { status: 'failed'; providerReference: string; failureCode: string; failureMessage: string };

/** What a provider tells us asynchronously, once its signature was verified. */
export interface PaymentEvent {
  id: string;
  type: 'top_up.succeeded' | 'top_up.failed';
  topUpId: string;
  providerReference: string;
  failureCode?: string;
  failureMessage?: string;
}

/**
 * The payment-provider port. A real provider (Stripe, Adyen…) is a drop-in adapter: it turns
 * tokens into payment methods, opens hosted checkouts, charges saved methods off-session, refunds
 * a payment the wallet could not take, and verifies the signature of the webhooks it sends to
 * POST /v1/webhooks/payments/{name}.
 */
export abstract class PaymentProvider {
  abstract readonly name: string;
  abstract attachPaymentMethod(token: string): Promise<AttachedPaymentMethod>;
  abstract openCheckout(topUpId: string, amount: Money): Promise<{ providerReference: string; checkoutUrl: string }>;
  abstract chargeOffSession(topUpId: string, amount: Money, paymentMethodId: string): Promise<ChargeOutcome>;
  /**
   * Gives back a settled payment (`providerReference` is the charge's or checkout's). Idempotent
   * per top-up: a webhook retried after a rolled-back attempt must not refund twice.
   */
  abstract refund(
    topUpId: string,
    providerReference: string,
    amount: Money,
    reason: string,
  ): Promise<{ refundReference: string }>;
  /** Throws when the signature or its timestamp is not acceptable. */
  abstract verifyWebhook(rawBody: string, signatureHeader: string | undefined): PaymentEvent;
}
