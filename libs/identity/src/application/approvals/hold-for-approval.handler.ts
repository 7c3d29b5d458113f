import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog, newId } from '@app/shared-kernel';
import { ALWAYS_HELD_CHECKPOINTS } from '../../domain/workspace';
import { HoldForApprovalCommand, HoldResult } from './hold-for-approval.command';
import { approvalResponse } from './approval-response';
import { ApprovalRow, COLUMNS, storeActor, toView } from './approval-rows';
import { IdentityErrors } from '../../domain/identity-errors';

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
      throw IdentityErrors.APPROVAL_REQUIRED_HUMAN.create(
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
