import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  Clock,
  derivedWebhookSecret,
  invalidParameter,
  Money,
  PlatformOptions,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookSignature,
  SharedErrors,
} from '@app/shared-kernel';
import { SandboxWebhooks } from '../application/top-ups/sandbox-webhooks';
import { AttachedPaymentMethod, ChargeOutcome, PaymentEvent, PaymentProvider } from '../domain/payment-provider';

const TEST_CARDS: Record<string, { brand: string; last4: string; declines: boolean }> = {
  pm_card_visa: { brand: 'visa', last4: '4242', declines: false },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', declines: false },
  pm_card_declined: { brand: 'visa', last4: '0002', declines: true },
};
export const SIGNATURE_HEADER = WEBHOOK_SIGNATURE_HEADER;

export interface SandboxRefund {
  topUpId: string;
  refundReference: string;
  providerReference: string;
  amount: string;
  currency: string;
  reason: string;
}

/**
 * A provider that behaves like a real one without a network: test card tokens, hosted
 * checkouts, synchronous off-session charges, recorded refunds and webhooks signed with the
 * shared WebhookSignature (`t=<unix>,v1=<hex>` over `<t>.<body>`, five-minute replay window).
 */
@Injectable()
export class SandboxPaymentProvider extends PaymentProvider implements SandboxWebhooks {
  readonly name = 'sandbox';
  /** Every refund asked of the sandbox, as a real provider's dashboard would list them. */
  readonly refunds: SandboxRefund[] = [];
  private readonly signature: WebhookSignature;

  constructor(options: PlatformOptions, clock: Clock) {
    super();
    this.signature = new WebhookSignature(derivedWebhookSecret(options.appSecret, 'webhooks:sandbox'), clock);
  }

  async attachPaymentMethod(token: string): Promise<AttachedPaymentMethod> {
    const card = TEST_CARDS[token];
    if (!card)
      throw invalidParameter(
        'token',
        'INVALID_VALUE',
        `Unknown sandbox token; use one of ${Object.keys(TEST_CARDS).join(', ')}.`,
      );
    return { id: `pm_${randomBytes(12).toString('hex')}_${token.slice(3)}`, brand: card.brand, last4: card.last4 };
  }

  async openCheckout(topUpId: string): Promise<{ providerReference: string; checkoutUrl: string }> {
    const reference = `cs_sandbox_${randomBytes(12).toString('hex')}`;
    return { providerReference: reference, checkoutUrl: `https://checkout.sandbox.invalid/pay/${reference}?top_up=${topUpId}` };
  }

  async chargeOffSession(_topUpId: string, _amount: Money, paymentMethodId: string): Promise<ChargeOutcome> {
    const reference = `ch_sandbox_${randomBytes(12).toString('hex')}`;
    const declines = paymentMethodId.endsWith('_card_declined');
    return declines
      ? {
          status: 'failed',
          providerReference: reference,
          failureCode: 'card_declined',
          failureMessage: 'Your card was declined.',
        }
      : { status: 'succeeded', providerReference: reference };
  }

  /** Once per top-up, as a real provider's idempotency key makes it. */
  async refund(topUpId: string, providerReference: string, amount: Money, reason: string): Promise<{ refundReference: string }> {
    const earlier = this.refunds.find((refund) => refund.topUpId === topUpId);
    if (earlier) return { refundReference: earlier.refundReference };
    const refundReference = `re_sandbox_${randomBytes(12).toString('hex')}`;
    this.refunds.push({
      topUpId,
      refundReference,
      providerReference,
      amount: amount.toString(),
      currency: amount.currency,
      reason,
    });
    return { refundReference };
  }

  /** The sandbox's own outgoing webhook, signed as the endpoint expects it. */
  signedEvent(event: PaymentEvent): { body: string; signature: string } {
    const body = JSON.stringify({
      id: event.id,
      type: event.type,
      data: {
        top_up_id: event.topUpId,
        provider_reference: event.providerReference,
        failure_code: event.failureCode ?? null,
        failure_message: event.failureMessage ?? null,
      },
    });
    return { body, signature: this.signature.sign(body) };
  }

  /** Signs `body` at `timestamp` (unix seconds; now by default), as the sandbox's deliveries are. */
  sign(body: string, timestamp?: number): string {
    return this.signature.sign(body, timestamp);
  }

  verifyWebhook(rawBody: string, signatureHeader: string | undefined): PaymentEvent {
    this.signature.verify(rawBody, signatureHeader);
    const payload = parseJson(rawBody);
    if (
      typeof payload.id !== 'string' ||
      (payload.type !== 'top_up.succeeded' && payload.type !== 'top_up.failed') ||
      !payload.data
    ) {
      throw SharedErrors.UNSUPPORTED_EVENT.create('This event is not understood.');
    }
    return {
      id: payload.id,
      type: payload.type,
      topUpId: String(payload.data.top_up_id),
      providerReference: String(payload.data.provider_reference),
      failureCode: (payload.data.failure_code as string | null) ?? undefined,
      failureMessage: (payload.data.failure_message as string | null) ?? undefined,
    };
  }
}

function parseJson(text: string): { id?: unknown; type?: unknown; data?: Record<string, unknown> } {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}
