import { CustomerVerification } from '../../domain/customer-verification';

/**
 * The read side of customer verifications (GET one), outside any transaction. A port (also the DI
 * token); the module binds the adapter (infrastructure/typeorm-customer-verification.reads.ts).
 */
export abstract class VerificationReads {
  /** The workspace's verification; undefined when there is none. `verificationId` is a UUID. */
  abstract find(
    scope: { organizationId: string; workspaceId: string },
    verificationId: string,
  ): Promise<CustomerVerification | undefined>;
}
