import { Propagation, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OnApplicationBootstrap } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DiscoveryService } from '@nestjs/core';
import { Actor, AuditLog, Clock, DomainError, EventLog, isUuid, newId, previousAttributes } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { ALWAYS_HELD_CHECKPOINTS } from '../../domain/workspace';
import { ApprovalExecutor, ExecutesApprovalCheckpoint } from './approval-executor';
import { ApprovalView, DecideApprovalCommand, GetApprovalQuery, HoldForApprovalCommand, HoldResult } from './approval.commands';
import { approvalResponse } from './approval-response';

interface ApprovalRow {
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

const COLUMNS = `id, checkpoint, status, payload, requested_by_type, requested_by_id, decided_by_id, decided_at, decision_reason,
  result, created_at`;

function toView(row: ApprovalRow): ApprovalView {
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

function storeActor(actor: Actor): StoredActor {
  return { ...actor, principal: { ...actor.principal, scopes: [...actor.principal.scopes] } };
}

function restoreActor(stored: StoredActor): Actor {
  return { ...stored, principal: { ...stored.principal, scopes: new Set(stored.principal.scopes) } };
}

function approvalNotFound(): DomainError {
  return new DomainError('not_found', 'APPROVAL_NOT_FOUND', 'No such approval request.', { param: 'id' });
}

@CommandHandler(HoldForApprovalCommand)
export class HoldForApprovalHandler implements ICommandHandler<HoldForApprovalCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  @Transactional()
  async execute({ actor, checkpoint, payload }: HoldForApprovalCommand): Promise<HoldResult> {
    if (!ALWAYS_HELD_CHECKPOINTS.includes(checkpoint)) {
      const [workspace] = await this.txHost.tx.query(
        `SELECT settings->'approval_required_for' ? $3 AS required FROM workspaces WHERE organization_id = $1 AND id = $2`,
        [actor.organizationId, actor.workspaceId, checkpoint],
      );
      if (!workspace?.required) return { held: false };
    }
    if (!actor.principal.human) {
      throw new DomainError(
        'conflict',
        'APPROVAL_REQUIRED_HUMAN',
        ALWAYS_HELD_CHECKPOINTS.includes(checkpoint)
          ? `${checkpoint} always needs a human request and a second human's approval; sign in as a user.`
          : `This workspace requires a human approval for ${checkpoint}; sign in as a user.`,
        {
          details: { checkpoint },
        },
      );
    }
    const rows: ApprovalRow[] = await this.txHost.tx.query(
      `INSERT INTO approval_requests (organization_id, workspace_id, id, checkpoint, status, payload, requested_by_type,
         requested_by_id, created_at)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        actor.organizationId,
        actor.workspaceId,
        newId(),
        checkpoint,
        JSON.stringify({ request: payload, requester: storeActor(actor) }),
        actor.principal.type,
        actor.principal.id,
        this.clock.now(),
      ],
    );
    await this.audit.record(actor, {
      action: 'approval.requested',
      resourceType: 'approval',
      resourceId: rows[0].id,
      data: { checkpoint },
    });
    const approval = toView(rows[0]);
    await this.events.publish(actor, [{ type: 'approval_request.created', object: approvalResponse(approval) }]);
    return { held: true, approval };
  }
}

@CommandHandler(DecideApprovalCommand)
export class DecideApprovalHandler implements ICommandHandler<DecideApprovalCommand>, OnApplicationBootstrap {
  private readonly executors = new Map<string, ApprovalExecutor>();

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly discovery: DiscoveryService,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: ExecutesApprovalCheckpoint.KEY })) {
      const checkpoint = this.discovery.getMetadataByDecorator(ExecutesApprovalCheckpoint, wrapper)!;
      const registered = this.executors.get(checkpoint);
      if (registered && registered !== wrapper.instance) {
        throw new Error(
          `Two approval executors are registered for checkpoint ${checkpoint} (${registered.constructor.name} and ` +
            `${String(wrapper.name)}); exactly one may handle it.`,
        );
      }
      this.executors.set(checkpoint, wrapper.instance as ApprovalExecutor);
    }
  }

  @Transactional()
  async execute({ actor, approvalId, decision, reason }: DecideApprovalCommand): Promise<ApprovalView> {
    const [row]: ApprovalRow[] = isUuid(approvalId)
      ? await this.txHost.tx.query(
          `SELECT ${COLUMNS} FROM approval_requests WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`,
          [actor.organizationId, actor.workspaceId, approvalId],
        )
      : [];
    if (!row) throw approvalNotFound();
    if (!actor.principal.human) {
      throw new DomainError('forbidden', 'HUMAN_SESSION_REQUIRED', 'Approvals are decided by a signed-in user, not an API key.');
    }
    if (row.requested_by_type === 'user' && row.requested_by_id === actor.principal.id) {
      throw new DomainError('forbidden', 'SELF_APPROVAL_FORBIDDEN', 'The requester cannot decide their own request.');
    }
    const target = decision === 'approve' ? 'approved' : 'rejected';
    if (row.status !== 'pending') {
      throw new DomainError('conflict', 'INVALID_STATUS_TRANSITION', `This approval is already ${row.status}.`, {
        details: { from: row.status, to: target, allowed: [] },
      });
    }
    const { status, result } =
      decision === 'approve' ? await this.apply(row, actor) : { status: 'rejected' as const, result: null };
    // TypeORM answers an UPDATE with [rows, affected count], not with the rows alone.
    const [[decided]]: [ApprovalRow[], number] = await this.txHost.tx.query(
      `UPDATE approval_requests SET status = $4, decided_by_id = $5, decided_at = $6, decision_reason = $7, result = $8
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
      [
        actor.organizationId,
        actor.workspaceId,
        row.id,
        status,
        actor.principal.id,
        this.clock.now(),
        reason ?? null,
        result && JSON.stringify(result),
      ],
    );
    await this.audit.record(actor, {
      action: `approval.${status}`,
      resourceType: 'approval',
      resourceId: row.id,
      data: { checkpoint: row.checkpoint },
    });
    const before = approvalResponse(toView(row));
    const after = approvalResponse(toView(decided));
    // Approved, whether the held request then applied or failed (status `failed`, its error in `result`).
    await this.events.publish(actor, [
      {
        type: decision === 'approve' ? 'approval_request.approved' : 'approval_request.rejected',
        object: after,
        previousAttributes: previousAttributes(before, after),
      },
    ]);
    return toView(decided);
  }

  /** Runs the held request in a savepoint: a refusal rolls back its effects, not the decision. */
  private async apply(
    row: ApprovalRow,
    approver: Actor,
  ): Promise<{ status: 'approved' | 'failed'; result: Record<string, unknown> }> {
    const executor = this.executors.get(row.checkpoint);
    if (!executor) throw new Error(`No executor is registered for checkpoint ${row.checkpoint}`);
    try {
      const response = await this.txHost.withTransaction(Propagation.Nested, () =>
        executor.execute(row.payload.request, { requester: restoreActor(row.payload.requester), approver }),
      );
      return { status: 'approved', result: { outcome: 'succeeded', response: JSON.parse(JSON.stringify(response ?? null)) } };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return {
        status: 'failed',
        result: { outcome: 'failed', error: { code: error.code, message: error.message, details: error.details ?? null } },
      };
    }
  }
}

@QueryHandler(GetApprovalQuery)
export class GetApprovalHandler implements IQueryHandler<GetApprovalQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, approvalId }: GetApprovalQuery): Promise<ApprovalView> {
    const [row]: ApprovalRow[] = isUuid(approvalId)
      ? await this.dataSource.query(
          `SELECT ${COLUMNS} FROM approval_requests WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, approvalId],
        )
      : [];
    if (!row) throw approvalNotFound();
    return toView(row);
  }
}
