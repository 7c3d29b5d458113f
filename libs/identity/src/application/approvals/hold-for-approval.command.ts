import { Command, Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface ApprovalView {
  id: string;
  checkpoint: string;
  status: 'pending' | 'approved' | 'rejected' | 'failed';
  payload: Record<string, unknown>;
  requestedBy: { type: string; id: string };
  decidedBy: { type: 'user'; id: string } | null;
  decidedAt: Date | null;
  decisionReason: string | null;
  result: Record<string, unknown> | null;
  createdAt: Date;
}

export type HoldResult = { held: false } | { held: true; approval: ApprovalView };

/**
 * Called by a context before applying a checkpointed action, inside its transaction: when the
 * workspace requires approval, an API key is refused and a human's request is held instead.
 */
export class HoldForApprovalCommand extends Command<HoldResult> {
  constructor(
    readonly actor: Actor,
    readonly checkpoint: string,
    readonly payload: Record<string, unknown>,
  ) {
    super();
  }
}

export class DecideApprovalCommand extends Command<ApprovalView> {
  constructor(
    readonly actor: Actor,
    readonly approvalId: string,
    readonly decision: 'approve' | 'reject',
    readonly reason: string | undefined,
  ) {
    super();
  }
}

export class GetApprovalQuery extends Query<ApprovalView> {
  constructor(
    readonly actor: Actor,
    readonly approvalId: string,
  ) {
    super();
  }
}
