import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ApprovalView, DecideApprovalCommand, GetApprovalQuery } from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { iso } from '../http/iso-date';

export class ApprovalDecisionDto {
  @ApiPropertyOptional({ example: 'Confirmed with finance.' }) @IsOptional() @IsString() @MaxLength(1000) reason?: string;
}

class PrincipalRefDto {
  @ApiProperty({ enum: ['api_key', 'user'] }) type!: string;
  @ApiProperty() id!: string;
}

export class ApprovalDto {
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'approval' }) object!: 'approval';
  @ApiProperty({ example: 'wallet.adjust' }) checkpoint!: string;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected', 'failed'] }) status!: string;
  @ApiProperty({ description: 'The held request.', example: { wallet_id: '…', amount: '-25.00' } }) request!: Record<
    string,
    unknown
  >;
  @ApiProperty({ type: PrincipalRefDto }) requested_by!: PrincipalRefDto;
  @ApiProperty({ type: PrincipalRefDto, nullable: true }) decided_by!: PrincipalRefDto | null;
  @ApiProperty({ type: String, nullable: true }) decided_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) decision_reason!: string | null;
  @ApiProperty({ nullable: true, description: 'What applying the held request produced (or why it failed).' })
  result!: Record<string, unknown> | null;
  @ApiProperty() created_at!: string;
}

function toDto(approval: ApprovalView): ApprovalDto {
  return {
    id: approval.id,
    object: 'approval',
    checkpoint: approval.checkpoint,
    status: approval.status,
    request: approval.payload,
    requested_by: approval.requestedBy,
    decided_by: approval.decidedBy,
    decided_at: iso(approval.decidedAt),
    decision_reason: approval.decisionReason,
    result: approval.result,
    created_at: approval.createdAt.toISOString(),
  };
}

@ApiTags('Approvals')
@Controller('approvals')
export class ApprovalsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get(':id')
  @RequireScope('approvals:read')
  @ApiOperation({ summary: 'Get an approval request (poll it after a 202).' })
  @ApiOkResponse({ type: ApprovalDto })
  async get(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<ApprovalDto> {
    return toDto(await this.queries.execute(new GetApprovalQuery(actor, id)));
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RequireScope('approvals:write')
  @ApiOperation({
    summary: 'Approve: applies the held request atomically and records its result. Human sessions only, not the requester.',
  })
  @ApiOkResponse({ type: ApprovalDto })
  async approve(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: ApprovalDecisionDto): Promise<ApprovalDto> {
    return toDto(await this.commands.execute(new DecideApprovalCommand(actor, id, 'approve', body.reason)));
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequireScope('approvals:write')
  @ApiOperation({ summary: 'Reject: nothing is applied. Human sessions only, not the requester.' })
  @ApiOkResponse({ type: ApprovalDto })
  async reject(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: ApprovalDecisionDto): Promise<ApprovalDto> {
    return toDto(await this.commands.execute(new DecideApprovalCommand(actor, id, 'reject', body.reason)));
  }
}
