import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Body, Controller, HttpCode, Injectable, Module, Post, Res } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApprovalExecutor, ApprovalView, ExecutesApprovalCheckpoint, HoldForApprovalCommand } from '@app/identity';
import { Actor, DomainError, newId } from '@app/shared-kernel';
import { IsString, MaxLength } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../../apps/api/src/http/auth/current-actor.decorator';
import { RequireScope } from '../../apps/api/src/http/auth/route-access';

/**
 * A stand-in for the wallet adjustment until wallets exist: a checkpointed action that is
 * either held for a human approval (202) or applied at once (200), and the executor that
 * applies a held one once approved. Its table is created by the test itself.
 */
export const PROBE_ADJUSTMENTS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS probe_adjustments (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  amount text NOT NULL,
  requested_by text NOT NULL,
  approved_by text
)`;

export const REFUSED_AMOUNT = 'refuse';

export class ProbeAdjustmentDto {
  @IsString() @MaxLength(50) amount!: string;
}

export type ProbeAdjustmentOutcome = { held: true; approval: ApprovalView } | { held: false; adjustment: AppliedAdjustment };

export interface AppliedAdjustment {
  object: 'probe_adjustment';
  id: string;
  amount: string;
}

/** The effect itself, shared by the direct path and the approval executor. */
@Injectable()
export class ProbeAdjustmentWriter {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async apply(requester: Actor, amount: string, approver?: Actor): Promise<AppliedAdjustment> {
    const id = newId();
    await this.txHost.tx.query(
      `INSERT INTO probe_adjustments (id, organization_id, workspace_id, amount, requested_by, approved_by)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, requester.organizationId, requester.workspaceId, amount, requester.principal.id, approver?.principal.id ?? null],
    );
    if (amount === REFUSED_AMOUNT) {
      // After the write, so that a rollback of the effect is what the tests observe.
      throw new DomainError('rule_violation', 'PROBE_REFUSED', 'The probe adjustment was asked to fail.');
    }
    return { object: 'probe_adjustment', id, amount };
  }
}

export class AdjustProbeCommand extends Command<ProbeAdjustmentOutcome> {
  constructor(
    readonly actor: Actor,
    readonly amount: string,
  ) {
    super();
  }
}

@CommandHandler(AdjustProbeCommand)
export class AdjustProbeHandler implements ICommandHandler<AdjustProbeCommand> {
  constructor(
    private readonly commands: CommandBus,
    private readonly writer: ProbeAdjustmentWriter,
  ) {}

  @Transactional()
  async execute({ actor, amount }: AdjustProbeCommand): Promise<ProbeAdjustmentOutcome> {
    const hold = await this.commands.execute(new HoldForApprovalCommand(actor, 'wallet.adjust', { amount }));
    if (hold.held) return { held: true, approval: hold.approval };
    return { held: false, adjustment: await this.writer.apply(actor, amount) };
  }
}

@Injectable()
@ExecutesApprovalCheckpoint('wallet.adjust')
export class ProbeAdjustmentExecutor implements ApprovalExecutor {
  readonly calls: Array<{ payload: Record<string, unknown>; requester: string; approver: string }> = [];

  constructor(private readonly writer: ProbeAdjustmentWriter) {}

  async execute(payload: Record<string, unknown>, context: { requester: Actor; approver: Actor }): Promise<unknown> {
    this.calls.push({ payload, requester: context.requester.principal.id, approver: context.approver.principal.id });
    return this.writer.apply(context.requester, String(payload.amount), context.approver);
  }
}

@ApiTags('Probes (test only)')
@Controller('probe_adjustments')
export class ProbeAdjustmentsController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOkResponse({ description: 'Applied now (200) or held for approval (202).' })
  async adjust(
    @CurrentActor() actor: Actor,
    @Body() body: ProbeAdjustmentDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const outcome = await this.commands.execute(new AdjustProbeCommand(actor, body.amount));
    if (!outcome.held) return outcome.adjustment;
    const { approval } = outcome;
    void reply.status(202).header('Location', `/v1/approvals/${approval.id}`);
    return {
      object: 'approval_request',
      status: 'pending_approval',
      approval: { id: approval.id, status: approval.status, checkpoint: approval.checkpoint },
    };
  }
}

@Module({
  controllers: [ProbeAdjustmentsController],
  providers: [ProbeAdjustmentWriter, AdjustProbeHandler, ProbeAdjustmentExecutor],
})
export class FlowsApprovalProbeModule {}
