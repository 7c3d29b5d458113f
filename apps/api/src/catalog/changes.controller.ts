import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CancelChangeCommand,
  CreateChangeCommand,
  GetCascadeRunQuery,
  GetChangeQuery,
  ListCascadeTasksQuery,
} from '@app/catalog';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ListQueryDto } from '../http/list-query.dto';
import { CascadeRunDto, CascadeTaskListDto, ChangeDto, CreateChangeDto } from './catalog.dto';
import { OperationId } from '../http/operation-id';

@ApiTags('Changes')
@Controller('changes')
export class ChangesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createChange')
  @Post()
  @HttpCode(201)
  @RequireScope('changes:write')
  @ApiOperation({
    summary:
      'Publish the working draft now (the change is applied, with the version that went live) or schedule it (pending until scheduled_for; the job queue fires it).',
  })
  @ApiCreatedResponse({ type: ChangeDto })
  @ApiBody({
    type: CreateChangeDto,
    examples: {
      now: {
        summary: 'Publish a product’s working draft now',
        value: {
          operation: 'catalog.publish_version',
          subject_kind: 'product',
          subject_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07',
          staged_version_id: '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e7f',
          release_name: '2027 price list',
        },
      },
      scheduled: {
        summary: 'Schedule a plan’s working draft, pinning one product version',
        value: {
          operation: 'catalog.publish_version',
          subject_kind: 'plan',
          subject_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d11',
          staged_version_id: '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e80',
          scheduled_for: '2027-01-01T00:00:00Z',
          pins: [
            { product_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', product_version_id: '0193a5c2-8a10-7c3e-9d2f-3a1b4c5d6e7f' },
          ],
        },
      },
    },
  })
  @ApiErrors(
    'PRODUCT_NOT_FOUND',
    'PLAN_NOT_FOUND',
    'VERSION_NOT_FOUND',
    'INVALID_PIN',
    'PUBLISH_NOT_WORKING_DRAFT',
    'PUBLISH_ENTITY_ARCHIVED',
    'PUBLISH_NOTHING_STAGED',
    'PUBLISH_SCHEDULE_IN_PAST',
    'PUBLISH_SCHEDULE_TAKEN',
    'PUBLISH_BEFORE_BASE_RELEASE',
    'PUBLISH_BEFORE_COST_EFFECTIVE',
    'PUBLISH_STALE_BASE',
    'PUBLISH_FORMULA_INVALID',
    'PUBLISH_DEPENDENCY_UNPUBLISHED',
    'PUBLISH_INVALID_ALLOWANCE',
    'PUBLISH_CADENCE_MISMATCH',
  )
  async create(@CurrentActor() actor: Actor, @Body() body: CreateChangeDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const id = await this.commands.execute(
      new CreateChangeCommand(actor, {
        subjectKind: body.subject_kind,
        subjectId: body.subject_id,
        stagedVersionId: body.staged_version_id,
        scheduledFor: body.scheduled_for,
        pins: body.pins?.map((pin) => ({ productId: pin.product_id, productVersionId: pin.product_version_id })),
        releaseName: body.release_name,
        releaseNote: body.release_note,
      }),
    );
    void reply.header('Location', `/v1/changes/${id}`);
    return this.queries.execute(new GetChangeQuery(actor, id));
  }

  @OperationId('getChange')
  @Get(':id')
  @RequireScope('changes:read')
  @ApiOperation({
    summary:
      'Get a change: pending (with its rank in the queue), applied (with the version), canceled or failed (with the reason).',
  })
  @ApiOkResponse({ type: ChangeDto })
  @ApiErrors('CHANGE_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetChangeQuery(actor, id));
  }

  @OperationId('cancelChange')
  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScope('changes:write')
  @ApiOperation({
    summary: 'Cancel a pending change: its scheduled version leaves the queue; dependents lists the versions based on it.',
  })
  @ApiOkResponse({ type: ChangeDto })
  @ApiErrors('CHANGE_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
  async cancel(@CurrentActor() actor: Actor, @Param('id') id: string) {
    const { dependents } = await this.commands.execute(new CancelChangeCommand(actor, id));
    return { ...(await this.queries.execute(new GetChangeQuery(actor, id))), dependents };
  }
}

@ApiTags('Changes')
@Controller('cascade_runs')
export class CascadeRunsController {
  constructor(private readonly queries: QueryBus) {}

  @OperationId('getCascadeRun')
  @Get(':id')
  @RequireScope('products:read')
  @ApiOperation({
    summary:
      'A cascade run’s progress: pending, republished, unchanged and errored products and plans (a product going live cascades into the plans tracking it latest).',
  })
  @ApiOkResponse({ type: CascadeRunDto })
  @ApiErrors('CASCADE_RUN_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetCascadeRunQuery(actor, id));
  }

  @OperationId('listCascadeRunTasks')
  @Get(':id/tasks')
  @RequireScope('products:read')
  @ApiOperation({
    summary: 'A cascade run’s tasks, one per product or plan, with the version each produced or the reason it errored.',
  })
  @ApiOkResponse({ type: CascadeTaskListDto })
  @ApiErrors('CASCADE_RUN_NOT_FOUND')
  tasks(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListQueryDto) {
    return this.queries.execute(new ListCascadeTasksQuery(actor, id, query.pageLimit, query.cursor));
  }
}
