import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { approvalResponse, ApprovalView, DecideApprovalCommand, GetApprovalQuery } from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { ApiErrors } from '../http/error-catalog';
import { RequireScope } from '../http/auth/route-access';
import { PrincipalRefDto } from '../http/principal-ref.dto';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { OperationId } from '../http/operation-id';

export class ApprovalDecisionDto {
  @ApiPropertyOptional({ example: 'Confirmed with finance.' }) @IsOptional() @IsString() @MaxLength(1000) reason?: string;
}

/** A held wallet adjustment, as the requester sent it. */
const HELD_ADJUSTMENT = {
  wallet_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07',
  amount: '-25.00',
  source: 'MANUAL',
  currency: 'EUR',
  reason: 'Goodwill correction for ticket 1881',
  reference: 'case_1881',
};

export class ApprovalDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d05' }) id!: string;
  @ApiProperty({ example: 'approval' }) object!: 'approval';
  @ApiProperty({ example: 'wallet.adjust' }) checkpoint!: string;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected', 'failed'], example: 'approved' }) status!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The held request.', example: HELD_ADJUSTMENT })
  request!: Record<string, unknown>;
  @ApiProperty({ type: PrincipalRefDto }) requested_by!: PrincipalRefDto;
  @ApiProperty({ type: PrincipalRefDto, nullable: true }) decided_by!: PrincipalRefDto | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-22T13:05:00.000Z' }) decided_at!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Confirmed with finance.' }) decision_reason!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'What applying the held request produced (or why it failed).',
    example: {
      outcome: 'succeeded',
      response: {
        id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d11',
        object: 'wallet_transaction',
        wallet_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07',
        type: 'adjustment',
        source: 'MANUAL',
        amount: '-25.00',
        currency: 'EUR',
        cash_amount: '-25.00',
        promotional_amount: '0.00',
        ending_cash_balance: '75.00',
        ending_promotional_balance: '5.00',
        reason: HELD_ADJUSTMENT.reason,
        reference: HELD_ADJUSTMENT.reference,
        transfer_id: null,
        hold_id: null,
        expires_at: null,
        exchange_rate: null,
        funding: null,
        created_by: { type: 'user', id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02' },
        created_at: '2026-11-22T13:05:00.000Z',
      },
    },
  })
  result!: Record<string, unknown> | null;
  @ApiProperty({ example: '2026-11-22T12:40:00.000Z' }) created_at!: string;
}

function toDto(approval: ApprovalView): ApprovalDto {
  return approvalResponse(approval);
}

@ApiTags('Approvals')
@Controller('approvals')
export class ApprovalsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('getApproval')
  @Get(':id')
  @RequireScope('approvals:read')
  @ApiOperation({ summary: 'Get an approval request (poll it after a 202).' })
  @ApiOkResponse({ type: ApprovalDto })
  @ApiErrors('APPROVAL_NOT_FOUND')
  async get(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<ApprovalDto> {
    return toDto(await this.queries.execute(new GetApprovalQuery(actor, id)));
  }

  @OperationId('approveApproval')
  @Post(':id/approve')
  @HttpCode(200)
  @RequireScope('approvals:write')
  @ApiOperation({
    summary: 'Approve: applies the held request atomically and records its result. Human sessions only, not the requester.',
  })
  @ApiOkResponse({ type: ApprovalDto })
  @ApiErrors('APPROVAL_NOT_FOUND', 'HUMAN_SESSION_REQUIRED', 'SELF_APPROVAL_FORBIDDEN', 'INVALID_STATUS_TRANSITION', 'CONFLICT')
  async approve(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: ApprovalDecisionDto): Promise<ApprovalDto> {
    return toDto(await this.commands.execute(new DecideApprovalCommand(actor, id, 'approve', body.reason)));
  }

  @OperationId('rejectApproval')
  @Post(':id/reject')
  @HttpCode(200)
  @RequireScope('approvals:write')
  @ApiOperation({ summary: 'Reject: nothing is applied. Human sessions only, not the requester.' })
  @ApiOkResponse({ type: ApprovalDto })
  @ApiErrors('APPROVAL_NOT_FOUND', 'HUMAN_SESSION_REQUIRED', 'SELF_APPROVAL_FORBIDDEN', 'INVALID_STATUS_TRANSITION', 'CONFLICT')
  async reject(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: ApprovalDecisionDto): Promise<ApprovalDto> {
    return toDto(await this.commands.execute(new DecideApprovalCommand(actor, id, 'reject', body.reason)));
  }
}
