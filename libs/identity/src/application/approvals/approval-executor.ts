import { DiscoveryService } from '@nestjs/core';
import { Actor } from '@app/shared-kernel';

/**
 * Runs a held request once a human approved it, inside the approval's transaction. A
 * DomainError marks the approval failed (its effects rolled back); the requester's authority
 * applies, the approver's is recorded.
 */
export interface ApprovalExecutor {
  execute(payload: Record<string, unknown>, context: { requester: Actor; approver: Actor }): Promise<unknown>;
}

/** `@ExecutesApprovalCheckpoint('wallet.adjust')` on the injectable that applies that checkpoint. */
export const ExecutesApprovalCheckpoint = DiscoveryService.createDecorator<string>();
