import { VerificationStatus, VerificationType } from '../../domain/customer-verification';

/** A verification as lists show it. */
export interface VerificationSummaryView {
  id: string;
  customerId: string;
  status: VerificationStatus;
  verificationType: VerificationType;
  createdAt: Date;
}

/** The detail read: the provider, its reference and raw result, every timestamp. */
export interface VerificationView extends VerificationSummaryView {
  provider: string;
  providerReference: string;
  /** The provider's last applied result as it sent it (parsed JSON), or null before any. */
  providerResult: unknown;
  updatedAt: Date;
  completedAt: Date | null;
  expiresAt: Date | null;
}
