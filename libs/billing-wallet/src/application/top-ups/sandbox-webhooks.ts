import { PaymentEvent } from '../../domain/payment-provider';

/**
 * The sandbox provider as the test helpers play it (POST /v1/test_helpers/top_ups/{id}/succeed|fail):
 * it writes the webhook a real provider would send, signed as its endpoint expects. A port (also the
 * DI token); the module binds it to the sandbox adapter (infrastructure/sandbox-payment-provider.ts).
 */
export abstract class SandboxWebhooks {
  /** The provider's name: its webhooks arrive at POST /v1/webhooks/payments/{name}. */
  abstract readonly name: string;

  /** The sandbox's own outgoing webhook, signed as the endpoint expects it. */
  abstract signedEvent(event: PaymentEvent): { body: string; signature: string };
}
