import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ListPlansQuery } from '@app/catalog';
import type { Actor } from '@app/shared-kernel';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { CUSTOM_FIELDS_QUERY, ListPlansQueryDto, PlanListDto } from './plans-list.dto';
import { OperationId } from '../http/operation-id';

@ApiTags('Plans')
@Controller('plans')
export class PlansListController {
  constructor(private readonly queries: QueryBus) {}

  @OperationId('listPlans')
  @Get()
  @RequireScope('plans:read')
  @ApiOperation({
    summary: 'List plans: filter, search, sort, count by status.',
    description:
      'Filters are `field[.op]=value` and AND together; a bare `field=value` is eq, and for name and external_id a bare comma list is in ' +
      '(`name.eq` never splits). Range filters: created_at, updated_at, published_at (RFC 3339) and version (the live number), each with ' +
      'eq, gt, gte, lt, lte. Also external_id (eq, in), name (eq, in, contains), custom_fields.<key> (eq, in), status, tag (repeatable), ' +
      'has_scheduled_version. An unknown parameter, field or operator, a repeated filter or a bad value is 400 INVALID_FILTER naming ' +
      'the parameter. Items are plan objects as GET /v1/plans/{id} returns them; deleted plans never appear. Cursors are bound to the ' +
      'filters, search and sort that issued them.',
  })
  @ApiQuery(CUSTOM_FIELDS_QUERY)
  @ApiOkResponse({ type: PlanListDto })
  @ApiErrors('INVALID_FILTER', 'INVALID_SORT')
  list(@CurrentActor() actor: Actor, @Query() query: ListPlansQueryDto) {
    // The pipe leaves this query untouched (ParsesOwnQuery): the list's grammar reads it whole.
    return this.queries.execute(new ListPlansQuery(actor, { ...query }));
  }
}
