import { VerificationSummaryView, VerificationView } from './verification.view';

/** The list's customer verification: what `GET /v1/customer_verifications` answers per item. */
export function verificationSummaryResponse(verification: VerificationSummaryView) {
  return {
    id: verification.id,
    object: 'customer_verification' as const,
    customer_id: verification.customerId,
    status: verification.status,
    verification_type: verification.verificationType,
    created_at: verification.createdAt.toISOString(),
  };
}

/** The contract's customer verification: what its routes answer and what its events carry. */
export function verificationResponse(verification: VerificationView) {
  return {
    ...verificationSummaryResponse(verification),
    provider: verification.provider,
    provider_reference: verification.providerReference,
    provider_result: verification.providerResult as Record<string, unknown> | null,
    updated_at: verification.updatedAt.toISOString(),
    completed_at: verification.completedAt?.toISOString() ?? null,
    expires_at: verification.expiresAt?.toISOString() ?? null,
  };
}
