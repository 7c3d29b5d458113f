import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  APPROVAL_CHECKPOINTS,
  CreateWorkspaceCommand,
  ListWorkspacesQuery,
  UpdateWorkspaceCommand,
  WorkspaceView,
} from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { ApiErrors } from '../http/error-catalog';
import { PendingApprovalDto, pendingApproval } from '../http/pending-approval.dto';
import { RequireScope } from '../http/auth/route-access';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { OperationId } from '../http/operation-id';

class WorkspaceSettingsDto {
  @ApiPropertyOptional({ enum: APPROVAL_CHECKPOINTS, isArray: true, example: ['wallet.adjust'] })
  @IsOptional()
  @IsArray()
  approval_required_for?: unknown[];
}

export class CreateWorkspaceDto {
  @ApiProperty({ example: 'EU sandbox' }) @IsString() name!: string;
  @ApiProperty({ example: 'eu-sandbox', description: 'Lowercase letters, digits, inner hyphens; unique in the organization.' })
  @IsString()
  slug!: string;
  @ApiProperty({ enum: ['live', 'sandbox'], example: 'sandbox' }) @IsIn(['live', 'sandbox']) mode!: 'live' | 'sandbox';
}

export class UpdateWorkspaceDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Production', description: 'null leaves it unchanged.' })
  @IsOptional()
  @IsString()
  name?: string | null;
  @ApiPropertyOptional({ type: WorkspaceSettingsDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => WorkspaceSettingsDto)
  settings?: WorkspaceSettingsDto | null;
}

export class WorkspaceDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01' }) id!: string;
  @ApiProperty({ example: 'workspace' }) object!: 'workspace';
  @ApiProperty({ example: 'Live' }) name!: string;
  @ApiProperty({ example: 'live' }) slug!: string;
  @ApiProperty({ enum: ['live', 'sandbox'], example: 'live' }) mode!: string;
  @ApiProperty({ example: true, description: "The organization's default workspace of its mode." }) is_default!: boolean;
  @ApiProperty({ type: WorkspaceSettingsDto }) settings!: { approval_required_for: string[] };
  @ApiProperty({ example: '2026-11-20T08:00:00.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T09:12:04.000Z' }) updated_at!: string;
}

export class WorkspaceListDto {
  @ApiProperty({ type: [WorkspaceDto] }) data!: WorkspaceDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

function toDto(workspace: WorkspaceView): WorkspaceDto {
  return {
    id: workspace.id,
    object: 'workspace',
    name: workspace.name,
    slug: workspace.slug,
    mode: workspace.mode,
    is_default: workspace.isDefault,
    settings: workspace.settings,
    created_at: workspace.createdAt.toISOString(),
    updated_at: workspace.updatedAt.toISOString(),
  };
}

@ApiTags('Workspaces')
@Controller('workspaces')
export class WorkspacesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('listWorkspaces')
  @Get()
  @RequireScope('workspaces:read')
  @ApiOperation({ summary: "List the organization's workspaces." })
  @ApiOkResponse({ type: WorkspaceListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListQueryDto): Promise<WorkspaceListDto> {
    const page = await this.queries.execute(new ListWorkspacesQuery(actor, query.pageLimit, query.cursor));
    return { data: page.data.map(toDto), pagination: page.pagination };
  }

  @OperationId('createWorkspace')
  @Post()
  @HttpCode(201)
  @RequireScope('workspaces:write')
  @ApiOperation({ summary: 'Create a workspace (live or sandbox).' })
  @ApiCreatedResponse({ type: WorkspaceDto })
  @ApiErrors('ALREADY_EXISTS')
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateWorkspaceDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkspaceDto> {
    const workspace = await this.commands.execute(new CreateWorkspaceCommand(actor, body));
    void reply.header('Location', `/v1/workspaces/${workspace.id}`);
    return toDto(workspace);
  }

  @OperationId('updateWorkspace')
  @Patch(':id')
  @RequireScope('workspaces:write')
  @ApiOperation({
    summary:
      'Rename a workspace or change its settings (merge-patch; null leaves a field unchanged). A change that removes an ' +
      'approval checkpoint is held for a second human (checkpoint workspace.approval_settings).',
  })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiAcceptedResponse({ type: PendingApprovalDto, description: 'Removes a checkpoint: held for approval; nothing applied.' })
  @ApiErrors('WORKSPACE_NOT_FOUND', 'APPROVAL_REQUIRED_HUMAN', 'CONFLICT')
  async update(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: UpdateWorkspaceDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkspaceDto | PendingApprovalDto> {
    const result = await this.commands.execute(
      new UpdateWorkspaceCommand(actor, id, { name: body.name, settings: body.settings }),
    );
    if (result.held) {
      return pendingApproval(reply, { id: result.approvalId, status: result.approvalStatus, checkpoint: result.checkpoint });
    }
    return toDto(result.workspace);
  }
}
