import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ListAuditEventsQuery } from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { PrincipalRefDto } from '../http/principal-ref.dto';
import { IsTimestamp } from '../http/timestamp';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { OperationId } from '../http/operation-id';

export class ListAuditEventsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'api_key' }) @IsOptional() @IsString() @MaxLength(100) resource_type?: string;
  @ApiPropertyOptional({
    example: 'pm_5f1c9e2a7b3d4c6e8f0a1b2c_card_visa',
    description:
      'The id as the audit row names the resource: a UUID for most, a payment method’s pm_… id, any text up to 255 characters.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  resource_id?: string;
  @ApiPropertyOptional({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02', description: 'API key or user id.' })
  @IsOptional()
  @IsUUID()
  principal_id?: string;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'occurred_at ≥ this' })
  @IsOptional()
  @IsTimestamp()
  occurred_after?: Date;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'occurred_at < this' })
  @IsOptional()
  @IsTimestamp()
  occurred_before?: Date;
}

class AuditEventDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d06' }) id!: string;
  @ApiProperty({ example: 'audit_event' }) object!: 'audit_event';
  @ApiProperty({ example: 'api_key.created' }) action!: string;
  @ApiProperty({ example: 'api_key' }) resource_type!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d' }) resource_id!: string;
  @ApiProperty({ type: PrincipalRefDto }) principal!: PrincipalRefDto;
  @ApiProperty({ type: String, nullable: true, example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01' }) workspace_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69' }) request_id!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'What the action recorded; its keys depend on the action.',
    example: { name: 'Billing worker', key_type: 'sk_live', scopes: ['wallets:read'] },
  })
  data!: Record<string, unknown>;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) occurred_at!: string;
}

export class AuditEventListDto {
  @ApiProperty({ type: [AuditEventDto] }) data!: AuditEventDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

@ApiTags('Audit log')
@Controller('audit_events')
export class AuditEventsController {
  constructor(private readonly queries: QueryBus) {}

  @OperationId('listAuditEvents')
  @Get()
  @RequireScope('audit_events:read')
  @ApiOperation({ summary: 'Who did what, where and when, newest first (organization-wide).' })
  @ApiOkResponse({ type: AuditEventListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListAuditEventsQueryDto): Promise<AuditEventListDto> {
    const page = await this.queries.execute(
      new ListAuditEventsQuery(actor, query.pageLimit, query.cursor, {
        resourceType: query.resource_type,
        resourceId: query.resource_id,
        principalId: query.principal_id,
        occurredAfter: query.occurred_after,
        occurredBefore: query.occurred_before,
      }),
    );
    return {
      pagination: page.pagination,
      data: page.data.map((event) => ({
        id: event.id,
        object: 'audit_event',
        action: event.action,
        resource_type: event.resourceType,
        resource_id: event.resourceId,
        principal: event.principal,
        workspace_id: event.workspaceId,
        request_id: event.requestId,
        data: event.data,
        occurred_at: event.occurredAt.toISOString(),
      })),
    };
  }
}
