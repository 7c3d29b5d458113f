import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CheckPlanPublishQuery,
  GetPlanPublishImpactQuery,
  GetSupersedeForecastQuery,
  GetVersionUsageQuery,
  ListVersionReferrersQuery,
  RepublishPlansCommand,
} from '@app/catalog';
import type { Actor } from '@app/shared-kernel';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import {
  PublishCheckDto,
  PublishCheckQueryDto,
  PublishImpactDto,
  ReferrersQueryDto,
  RepublishPlansDto,
  RepublishPlansResultDto,
  SupersedeForecastDto,
  VersionReferrerListDto,
  VersionUsageDto,
} from './plan-insights.dto';
import { VersionNumberPipe } from './version-number.pipe';
import type { VersionNumber } from './version-number.pipe';
import { OperationId } from '../http/operation-id';

/**
 * What a publish would do and who reads a version (model §4.7, §4.9): impact, a dry-run
 * publish, the supersede forecast, referrers and usage, and the bulk republish. Registered
 * before PlansController so that `POST /v1/plans/republish` is never read as a plan id.
 */
@ApiTags('Plans')
@Controller('plans')
export class PlanInsightsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('republishPlans')
  @Post('republish')
  @HttpCode(200)
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Bulk republish: each plan (in order, each in its own transaction) re-resolves its latest-tracking products at their heads; republished, unchanged or failed per plan.',
  })
  @ApiOkResponse({ type: RepublishPlansResultDto })
  async republish(@CurrentActor() actor: Actor, @Body() body: RepublishPlansDto) {
    return { data: await this.commands.execute(new RepublishPlansCommand(actor, body.plan_ids)) };
  }

  @OperationId('getPlanPublishImpact')
  @Get(':id/publish_impact')
  @RequireScope('plans:read')
  @ApiOperation({
    summary:
      'Publish impact: ACTIVE subscriptions a publish would move (tracking latest), those holding a pin, and the movers by strategy.',
  })
  @ApiOkResponse({ type: PublishImpactDto })
  @ApiErrors('PLAN_NOT_FOUND')
  impact(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetPlanPublishImpactQuery(actor, id));
  }

  @OperationId('checkPlanPublish')
  @Get(':id/publish_check')
  @RequireScope('plans:read')
  @ApiOperation({
    summary:
      'Would publishing the working draft succeed? A real publish (now, or at scheduled_for) in a transaction that is always rolled back: ok, or the first refusal’s code and message.',
  })
  @ApiOkResponse({ type: PublishCheckDto })
  @ApiErrors('PLAN_NOT_FOUND', 'PLAN_BUSY')
  check(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: PublishCheckQueryDto) {
    return this.queries.execute(new CheckPlanPublishQuery(actor, id, query.scheduled_for));
  }

  @OperationId('getPlanVersionSupersedeForecast')
  @Get(':id/versions/:version/supersede_forecast')
  @RequireScope('plans:read')
  @ApiOperation({
    summary:
      'Forecast superseding a version: whether it can be pinned, whether consumers republish (never, for plans), and its live readers. Uncached.',
  })
  @ApiOkResponse({ type: SupersedeForecastDto })
  @ApiErrors('PLAN_NOT_FOUND', 'VERSION_NOT_FOUND')
  forecast(@CurrentActor() actor: Actor, @Param('id') id: string, @Param('version', VersionNumberPipe) version: VersionNumber) {
    return this.queries.execute(new GetSupersedeForecastQuery(actor, id, version));
  }

  @OperationId('listPlanVersionReferrers')
  @Get(':id/versions/:version/referrers')
  @RequireScope('plans:read')
  @ApiOperation({
    summary:
      'Referrers of a version, of one type (subscription: on it, any status; change: staged or produced it), newest first, offset-paginated.',
  })
  @ApiOkResponse({ type: VersionReferrerListDto })
  @ApiErrors('PLAN_NOT_FOUND', 'VERSION_NOT_FOUND')
  referrers(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Param('version', VersionNumberPipe) version: VersionNumber,
    @Query() query: ReferrersQueryDto,
  ) {
    return this.queries.execute(new ListVersionReferrersQuery(actor, id, version, query.type, query.limit, query.cursor));
  }

  @OperationId('getPlanVersionUsage')
  @Get(':id/versions/:version/usage')
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'Usage of a version: its referrers counted by type.' })
  @ApiOkResponse({ type: VersionUsageDto })
  @ApiErrors('PLAN_NOT_FOUND', 'VERSION_NOT_FOUND')
  usage(@CurrentActor() actor: Actor, @Param('id') id: string, @Param('version', VersionNumberPipe) version: VersionNumber) {
    return this.queries.execute(new GetVersionUsageQuery(actor, id, version));
  }
}
