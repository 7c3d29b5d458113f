import { Propagation, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OnApplicationBootstrap } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DiscoveryService } from '@nestjs/core';
import { Actor, AuditLog, Clock, DomainError, EventLog, isUuid, previousAttributes, SharedErrors } from '@app/shared-kernel';
import { ApprovalExecutor, ExecutesApprovalCheckpoint } from './approval-executor';
import { ApprovalView } from './approval.view';
import { DecideApprovalCommand } from './decide-approval.command';
import { approvalResponse } from './approval-response';
import { ApprovalRow, COLUMNS, approvalNotFound, restoreActor, toView } from './approval-rows';
import { IdentityErrors } from '../../domain/identity-errors';

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
      throw IdentityErrors.HUMAN_SESSION_REQUIRED.create('Approvals are decided by a signed-in user, not an API key.');
    }
    if (row.requested_by_type === 'user' && row.requested_by_id === actor.principal.id) {
      throw IdentityErrors.SELF_APPROVAL_FORBIDDEN.create('The requester cannot decide their own request.');
    }
    const target = decision === 'approve' ? 'approved' : 'rejected';
    if (row.status !== 'pending') {
      throw SharedErrors.INVALID_STATUS_TRANSITION.create(`This approval is already ${row.status}.`, {
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
