import { ApprovalView } from './approval.view';

/** The contract's approval object: what the approval routes answer and what its events carry. */
export function approvalResponse(approval: ApprovalView) {
  return {
    id: approval.id,
    object: 'approval' as const,
    checkpoint: approval.checkpoint,
    status: approval.status,
    request: approval.payload,
    requested_by: approval.requestedBy,
    decided_by: approval.decidedBy,
    decided_at: approval.decidedAt?.toISOString() ?? null,
    decision_reason: approval.decisionReason,
    result: approval.result,
    created_at: approval.createdAt.toISOString(),
  };
}
