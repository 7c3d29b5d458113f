import { ProviderReport, VerificationStatus, VerificationType } from '../../domain/customer-verification';

/**
 * The sandbox verification provider as the test helper plays it (POST /v1/test_helpers/customer_verifications):
 * it opens a check and reports it in the status a test asks for, as its API would word it. A port
 * (also the DI token); the module binds it to the sandbox adapter (infrastructure/sandbox-verification-provider.ts).
 */
export abstract class SandboxChecks {
  /** The provider's name, recorded on the verification: its webhooks arrive at POST /v1/webhooks/verifications/{name}. */
  abstract readonly name: string;

  /** Opens a check at the sandbox; its reference routes the sandbox's later webhooks to the record. */
  abstract openCheck(): Promise<{ reference: string }>;

  /** The sandbox's result of the check in `status` (ours), as its API and its webhooks word it. */
  abstract reportIn(
    reference: string,
    status: VerificationStatus,
    expiresAt: Date | null,
    type: VerificationType,
  ): ProviderReport;
}
