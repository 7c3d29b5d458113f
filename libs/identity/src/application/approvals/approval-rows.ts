import { Actor, DomainError } from '@app/shared-kernel';
import { ApprovalView } from './approval.view';
import { IdentityErrors } from '../../domain/identity-errors';

export interface ApprovalRow {
  id: string;
  checkpoint: string;
  status: ApprovalView['status'];
  payload: { request: Record<string, unknown>; requester: StoredActor };
  requested_by_type: string;
  requested_by_id: string;
  decided_by_id: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
  result: Record<string, unknown> | null;
  created_at: Date;
}

interface StoredActor {
  organizationId: string;
  workspaceId: string;
  workspaceMode: 'live' | 'sandbox';
  principal: { type: 'api_key' | 'user'; id: string; credentialId: string; human: boolean; scopes: string[] };
}

export const COLUMNS = `id, checkpoint, status, payload, requested_by_type, requested_by_id, decided_by_id, decided_at, decision_reason,
  result, created_at`;

export function toView(row: ApprovalRow): ApprovalView {
  return {
    id: row.id,
    checkpoint: row.checkpoint,
    status: row.status,
    payload: row.payload.request,
    requestedBy: { type: row.requested_by_type, id: row.requested_by_id },
    decidedBy: row.decided_by_id ? { type: 'user', id: row.decided_by_id } : null,
    decidedAt: row.decided_at,
    decisionReason: row.decision_reason,
    result: row.result,
    createdAt: row.created_at,
  };
}

export function storeActor(actor: Actor): StoredActor {
  return { ...actor, principal: { ...actor.principal, scopes: [...actor.principal.scopes] } };
}

export function restoreActor(stored: StoredActor): Actor {
  return { ...stored, principal: { ...stored.principal, scopes: new Set(stored.principal.scopes) } };
}

export function approvalNotFound(): DomainError {
  return IdentityErrors.APPROVAL_NOT_FOUND.create('No such approval request.', { param: 'id' });
}
