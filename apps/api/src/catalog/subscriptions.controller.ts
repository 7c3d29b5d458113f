import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CancelMigrationCommand,
  CancelSubscriptionCommand,
  CreateSubscriptionCommand,
  GetMigrationQuery,
  GetSubscriptionQuery,
  ListMigrationOutcomesQuery,
  ListSubscriptionsQuery,
  MigratePlanCommand,
} from '@app/catalog';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import {
  CreateSubscriptionDto,
  ListOutcomesQueryDto,
  ListSubscriptionsQueryDto,
  MigratePlanDto,
  MigrationDto,
  MigrationOutcomeListDto,
  MigrationResultDto,
  SubscriptionDto,
  SubscriptionListDto,
} from './subscriptions.dto';
import { OperationId } from '../http/operation-id';

/**
 * Subscriptions as far as plan migration needs them (contract §3). They take the plans scopes:
 * the contract's scope list is closed, and a subscription here is a plan's subscriber record.
 */
@ApiTags('Subscriptions')
@Controller('subscriptions')
export class SubscriptionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createSubscription')
  @Post()
  @HttpCode(201)
  @RequireScope('plans:write')
  @ApiOperation({
    summary: 'Subscribe a customer to a live version of a plan (default: the live one), billed on that version’s cadence.',
  })
  @ApiCreatedResponse({ type: SubscriptionDto })
  @ApiErrors(
    'CUSTOMER_NOT_FOUND',
    'PLAN_NOT_FOUND',
    'ENTITY_ARCHIVED',
    'PLAN_VERSION_NOT_LIVE',
    'BILLING_CADENCE_MISMATCH',
    'INVALID_PIN',
  )
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateSubscriptionDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const id = await this.commands.execute(
      new CreateSubscriptionCommand(actor, {
        customerId: body.customer_id,
        planId: body.plan_id,
        planVersion: body.plan_version,
        billingCadence: body.billing_cadence,
        planTrackMode: body.plan_track_mode,
        versionChangeStrategy: body.version_change_strategy,
        productPins: body.product_pins?.map((pin) => ({ productId: pin.product_id, productVersionId: pin.product_version_id })),
        currentPeriodStart: body.current_period_start,
      }),
    );
    void reply.header('Location', `/v1/subscriptions/${id}`);
    return this.queries.execute(new GetSubscriptionQuery(actor, id));
  }

  @OperationId('listSubscriptions')
  @Get()
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'List subscriptions, newest first; plan_id, customer_id and status filter (AND).' })
  @ApiOkResponse({ type: SubscriptionListDto })
  list(@CurrentActor() actor: Actor, @Query() query: ListSubscriptionsQueryDto) {
    return this.queries.execute(
      new ListSubscriptionsQuery(
        actor,
        { planId: query.plan_id, customerId: query.customer_id, status: query.status },
        query.pageLimit,
        query.cursor,
      ),
    );
  }

  @OperationId('getSubscription')
  @Get(':id')
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'Get a subscription: the plan version it bills on, its tracking mode and product pins.' })
  @ApiOkResponse({ type: SubscriptionDto })
  @ApiErrors('SUBSCRIPTION_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetSubscriptionQuery(actor, id));
  }

  @OperationId('cancelSubscription')
  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScope('plans:write')
  @ApiOperation({ summary: 'Cancel an active subscription (terminal): no migration moves it afterwards.' })
  @ApiOkResponse({ type: SubscriptionDto })
  @ApiErrors('SUBSCRIPTION_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
  async cancel(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new CancelSubscriptionCommand(actor, id));
    return this.queries.execute(new GetSubscriptionQuery(actor, id));
  }
}

/** `POST /v1/plans/{id}/migrate`: moves a plan's subscribers to a version that went live. */
@ApiTags('Plans')
@Controller('plans')
export class PlanMigrationsController {
  constructor(private readonly commands: CommandBus) {}

  @OperationId('migratePlanSubscriptions')
  @Post(':id/migrate')
  @HttpCode(200)
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Migrate the plan’s ACTIVE subscriptions not on target_version (pinned ones included): PREVIEW counts, IMMEDIATE moves now (in batches), SCHEDULED at scheduled_at.',
  })
  @ApiOkResponse({ type: MigrationResultDto })
  @ApiErrors('PLAN_NOT_FOUND', 'INVALID_TARGET_VERSION')
  migrate(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: MigratePlanDto) {
    return this.commands.execute(
      new MigratePlanCommand(actor, id, {
        mode: body.mode,
        targetVersion: body.target_version,
        prorationStrategy: body.proration_strategy,
        scheduledAt: body.scheduled_at,
      }),
    );
  }
}

/** A migration's progress and outcomes; a scheduled one can be canceled until it starts. */
@ApiTags('Plans')
@Controller('migrations')
export class MigrationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('getPlanMigration')
  @Get(':id')
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'Get a migration with its outcome counts by status and skips by reason.' })
  @ApiOkResponse({ type: MigrationDto })
  @ApiErrors('MIGRATION_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetMigrationQuery(actor, id));
  }

  @OperationId('listPlanMigrationOutcomes')
  @Get(':id/outcomes')
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'A migration’s outcomes, one per subscription (by subscription id), optionally of one status.' })
  @ApiOkResponse({ type: MigrationOutcomeListDto })
  @ApiErrors('MIGRATION_NOT_FOUND')
  outcomes(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListOutcomesQueryDto) {
    return this.queries.execute(new ListMigrationOutcomesQuery(actor, id, query.status, query.pageLimit, query.cursor));
  }

  @OperationId('cancelPlanMigration')
  @Post(':id/cancel')
  @HttpCode(200)
  @RequireScope('plans:write')
  @ApiOperation({ summary: 'Cancel a scheduled migration that has not started.' })
  @ApiOkResponse({ type: MigrationDto })
  @ApiErrors('MIGRATION_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
  async cancel(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new CancelMigrationCommand(actor, id));
    return this.queries.execute(new GetMigrationQuery(actor, id));
  }
}
