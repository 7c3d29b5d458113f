import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EVENT_TYPES, EventResponse, GetEventQuery, ListEventsQuery } from '@app/shared-kernel';
import type { Actor } from '@app/shared-kernel';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { IsTimestamp } from '../http/timestamp';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { OperationId } from '../http/operation-id';

export class ListEventsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    example: 'wallet.transaction.created,wallet.hold.*',
    description:
      'Event types, comma-separated: exact types of the catalog, `prefix.*` (every type under the prefix, ' +
      '`wallet.*` takes `wallet.hold.created` too) or `*`. An item that names no type → 400.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  type?: string;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'created_at ≥ this' })
  @IsOptional()
  @IsTimestamp()
  created_after?: Date;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'created_at < this' })
  @IsOptional()
  @IsTimestamp()
  created_before?: Date;
}

class EventRequestDto {
  @ApiProperty({ type: String, nullable: true, example: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69' }) id!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'debit-2026-11-22-0001',
    description: 'Null for a request without one (PATCH, DELETE).',
  })
  idempotency_key!: string | null;
}

class EventDataDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The resource as its own GET answered it when the event happened.',
    example: {
      id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d10',
      object: 'wallet_transaction',
      wallet_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c7d',
      type: 'debit',
      source: 'CHARGE',
      amount: '-2.50',
      currency: 'USD',
      created_at: '2026-11-22T12:00:00.000Z',
    },
  })
  object!: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'On `*.updated` events: the changed fields with their values before the change.',
    example: { low_balance_threshold: null, updated_at: '2026-11-21T09:00:00.000Z' },
  })
  previous_attributes?: Record<string, unknown>;
}

export class EventDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d20' }) id!: string;
  @ApiProperty({ example: 'event' }) object!: 'event';
  @ApiProperty({ enum: EVENT_TYPES, example: 'wallet.transaction.created' }) type!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) created_at!: string;
  @ApiProperty({
    type: 'integer',
    example: 42,
    description: 'Increases by one with each event of the workspace, in the order their changes committed.',
  })
  sequence!: number;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01' }) workspace_id!: string;
  @ApiProperty({ example: true, description: 'False for events of a sandbox workspace.' }) livemode!: boolean;
  @ApiProperty({ type: EventDataDto }) data!: EventDataDto;
  @ApiProperty({
    type: EventRequestDto,
    nullable: true,
    description: 'The API request that made the change; null for background work (jobs, provider webhooks).',
  })
  request!: EventRequestDto | null;
}

export class EventListDto {
  @ApiProperty({ type: [EventDto] }) data!: EventDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

@ApiTags('Events')
@Controller('events')
export class EventsController {
  constructor(private readonly queries: QueryBus) {}

  @OperationId('listEvents')
  @Get()
  @RequireScope('events:read')
  @ApiOperation({ summary: 'The workspace’s events, newest first (by `sequence`), kept 30 days.' })
  @ApiOkResponse({ type: EventListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListEventsQueryDto): Promise<EventListDto> {
    return this.queries.execute(
      new ListEventsQuery(actor, query.pageLimit, query.cursor, {
        type: query.type,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      }),
    );
  }

  @OperationId('getEvent')
  @Get(':id')
  @RequireScope('events:read')
  @ApiOperation({ summary: 'Get an event of the workspace.' })
  @ApiOkResponse({ type: EventDto })
  @ApiErrors('EVENT_NOT_FOUND')
  async get(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<EventResponse> {
    return this.queries.execute(new GetEventQuery(actor, id));
  }
}
