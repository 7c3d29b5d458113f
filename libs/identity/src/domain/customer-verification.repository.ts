import { CustomerVerification } from './customer-verification';

export interface VerificationKey {
  organizationId: string;
  workspaceId: string;
  verificationId: string;
}

/** Customer verifications, each loaded FOR UPDATE inside the caller's transaction. */
export abstract class CustomerVerificationRepository {
  /** Undefined when the id is not a verification of that organization and workspace. */
  abstract lock(key: VerificationKey): Promise<CustomerVerification | undefined>;
  /** The one record a provider's reference names (a webhook carries no tenant: the reference resolves it). */
  abstract lockByReference(provider: string, reference: string): Promise<CustomerVerification | undefined>;
  abstract insert(verification: CustomerVerification): Promise<void>;
  abstract update(verification: CustomerVerification): Promise<void>;
}
