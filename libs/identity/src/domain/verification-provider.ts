import { ProviderReport, VerificationType } from './customer-verification';

/** A provider's webhook delivery, its signature verified: which event, about which check, saying what. */
export interface VerificationDelivery {
  /** The provider's event id: a second delivery of it is a no-op. */
  eventId: string;
  eventType: string;
  /** The provider's reference of the check: what resolves the record, hence its tenant. */
  reference: string;
  report: ProviderReport;
}

/**
 * The verification-provider port. A real provider (Onfido, Persona, Stripe Identity, a VAT
 * registry…) is an adapter: it opens checks, verifies the signature of the webhooks it sends to
 * POST /v1/webhooks/verifications/{name} and maps its statuses to ours, and answers when asked
 * again about a check during an outage.
 */
export abstract class VerificationProvider {
  abstract readonly name: string;
  /** Opens a check at the provider; its reference routes the provider's later webhooks to the record. */
  abstract openCheck(customerId: string, type: VerificationType): Promise<{ reference: string }>;
  /** Throws 401 INVALID_SIGNATURE (bad, missing or stale) or 400 UNSUPPORTED_EVENT; nothing is stored before. */
  abstract verifyWebhook(rawBody: string, signatureHeader: string | undefined): VerificationDelivery;
  /** The check's current result, asked again after an outage (`maintenance`). */
  abstract fetchResult(reference: string): Promise<ProviderReport>;
}
