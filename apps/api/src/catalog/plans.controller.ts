import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AddPlanProductCommand,
  AnnotatePlanVersionCommand,
  CopyPlanCommand,
  CreatePlanCommand,
  DeletePlanCommand,
  DiscardPlanDraftCommand,
  GetPlanDraftQuery,
  GetPlanQuery,
  GetPlanVersionQuery,
  ListPlanVersionsQuery,
  OpenPlanDraftCommand,
  PlanInput,
  RemovePlanProductCommand,
  TermsInput,
  UpdatePlanCommand,
  UpdatePlanProductCommand,
} from '@app/catalog';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import {
  AddPlanProductDto,
  AnnotateVersionDto,
  CopyPlanDto,
  CreatePlanDto,
  ListPlanVersionsQueryDto,
  OpenPlanDraftDto,
  PlanDraftDto,
  PlanDto,
  PlanVersionDto,
  PlanVersionListDto,
  UpdatePlanDto,
  UpdatePlanProductDto,
} from './plans.dto';
import { VersionNumberPipe } from './version-number.pipe';
import type { VersionNumber } from './version-number.pipe';
import { OperationId } from '../http/operation-id';
import { HttpErrors } from '../http/http-errors';

/** Publish controls belong to POST /v1/changes, never to a plan update. */
const PUBLISH_CONTROLS = ['effective_at', 'save_as_draft', 'publish_now', 'product_version_pins'] as const;

function planInput(body: CreatePlanDto | UpdatePlanDto): PlanInput {
  return {
    name: body.name,
    description: body.description,
    publicDescription: body.public_description,
    externalId: body.external_id,
    metadata: body.metadata,
    customFields: body.custom_fields,
    translations: body.translations,
    tags: body.tags,
    priceCadenceUnit: body.price_cadence_unit,
  };
}

function termsInput(body: AddPlanProductDto | UpdatePlanProductDto): TermsInput {
  return {
    minQuantity: body.min_quantity,
    defaultQuantity: body.default_quantity,
    maxQuantity: body.max_quantity,
    includedQuantity: body.included_quantity,
    refreshCount: body.refresh_count,
    refreshUnit: body.refresh_unit,
    rolloverEnabled: body.rollover_enabled,
    rolloverExpiryPeriods: body.rollover_expiry_periods,
    rolloverMax: body.rollover_max,
    unitLimit: body.unit_limit,
  };
}

@ApiTags('Plans')
@Controller('plans')
export class PlansController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createPlan')
  @Post()
  @HttpCode(201)
  @RequireScope('plans:write')
  @ApiOperation({ summary: 'Create a plan (status draft, version 1) with its working draft open.' })
  @ApiCreatedResponse({ type: PlanDto })
  @ApiErrors('ALREADY_EXISTS')
  async create(@CurrentActor() actor: Actor, @Body() body: CreatePlanDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const id = await this.commands.execute(new CreatePlanCommand(actor, planInput(body)));
    void reply.header('Location', `/v1/plans/${id}`);
    return this.queries.execute(new GetPlanQuery(actor, id));
  }

  @OperationId('getPlan')
  @Get(':id')
  @RequireScope('plans:read')
  @ApiOperation({
    summary: 'Get a plan with its products: the working view (the draft’s content when a draft is open, else the live one).',
  })
  @ApiOkResponse({ type: PlanDto })
  @ApiErrors('PLAN_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetPlanQuery(actor, id));
  }

  @OperationId('updatePlan')
  @Patch(':id')
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Merge-patch a plan: display fields land live, price_cadence_unit is staged, status "archived" archives; never publishes. expected_version guards against a publish since your read.',
  })
  @ApiOkResponse({ type: PlanDto })
  @ApiErrors(
    'PLAN_NOT_FOUND',
    'CONFLICT',
    'ALREADY_EXISTS',
    'ENTITY_ARCHIVED',
    'PUBLISH_VIA_CHANGE_REQUIRED',
    'STATUS_NOT_WRITABLE',
    'FIELD_NOT_ALLOWED',
  )
  async update(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: UpdatePlanDto) {
    const control = PUBLISH_CONTROLS.find((field) => body[field] !== undefined);
    if (control) {
      throw HttpErrors.FIELD_NOT_ALLOWED.create(
        `${control} is not a plan field: publish and schedule through POST /v1/changes.`,
        {
          param: control,
        },
      );
    }
    await this.commands.execute(
      new UpdatePlanCommand(actor, id, { ...planInput(body), status: body.status, expectedVersion: body.expected_version }),
    );
    return this.queries.execute(new GetPlanQuery(actor, id));
  }

  @OperationId('deletePlan')
  @Delete(':id')
  @HttpCode(204)
  @RequireScope('plans:write')
  @ApiOperation({
    summary: 'Delete a plan (soft): its queue is canceled and its draft discarded; subscribers keep billing on their versions.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('PLAN_NOT_FOUND')
  async delete(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new DeletePlanCommand(actor, id));
  }

  @OperationId('copyPlan')
  @Post(':id/copy')
  @HttpCode(201)
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Copy a plan: a draft plan at version 1 named "<name> (Copy)" with the source’s memberships; no versions, no external_id.',
  })
  @ApiCreatedResponse({ type: PlanDto })
  @ApiErrors('PLAN_NOT_FOUND')
  async copy(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: CopyPlanDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const copy = await this.commands.execute(new CopyPlanCommand(actor, id, body.name));
    void reply.header('Location', `/v1/plans/${copy}`);
    return this.queries.execute(new GetPlanQuery(actor, copy));
  }

  @OperationId('getPlanDraft')
  @Get(':id/draft')
  @RequireScope('plans:read')
  @ApiOperation({
    summary:
      'The staged draft: the id to publish, the number it will publish as, its base and a summary of what it stages; 404 when nothing is staged.',
  })
  @ApiOkResponse({ type: PlanDraftDto })
  @ApiErrors('PLAN_NOT_FOUND', 'STAGED_DRAFT_NOT_FOUND')
  draft(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetPlanDraftQuery(actor, id));
  }

  @OperationId('openPlanDraft')
  @Post(':id/draft')
  @HttpCode(200)
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Open the working draft on the live version or a scheduled release; re-bases a draft that holds no edits (409 otherwise).',
  })
  @ApiOkResponse({ type: PlanDraftDto })
  @ApiErrors('PLAN_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_BASE_VERSION', 'DRAFT_HAS_STAGED_EDITS', 'ENTITY_ARCHIVED')
  async openDraft(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: OpenPlanDraftDto) {
    await this.commands.execute(new OpenPlanDraftCommand(actor, id, body.base_version_id));
    return this.queries.execute(new GetPlanDraftQuery(actor, id));
  }

  @OperationId('discardPlanDraft')
  @Delete(':id/draft')
  @HttpCode(204)
  @RequireScope('plans:write')
  @ApiOperation({ summary: 'Discard the staged draft; the live plan is untouched.' })
  @ApiNoContentResponse({ description: 'Discarded.' })
  @ApiErrors('PLAN_NOT_FOUND', 'STAGED_DRAFT_NOT_FOUND')
  async discardDraft(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new DiscardPlanDraftCommand(actor, id));
  }

  @OperationId('addPlanProduct')
  @Post(':id/products')
  @HttpCode(201)
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Add a product to the plan’s working draft with its terms (band and allowance); it reaches subscribers at the next publish.',
  })
  @ApiCreatedResponse({ type: PlanDto })
  @ApiErrors('PLAN_NOT_FOUND', 'PRODUCT_NOT_FOUND', 'ALREADY_EXISTS', 'ENTITY_ARCHIVED')
  async addProduct(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: AddPlanProductDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commands.execute(new AddPlanProductCommand(actor, id, body.product_id, termsInput(body), body.product_track_mode));
    const plan = await this.queries.execute(new GetPlanQuery(actor, id));
    // The membership's own URL (where it is updated and removed); the body is the plan holding it.
    void reply.header('Location', `/v1/plans/${plan.id}/products/${body.product_id.toLowerCase()}`);
    return plan;
  }

  @OperationId('updatePlanProduct')
  @Patch(':id/products/:product_id')
  @RequireScope('plans:write')
  @ApiOperation({
    summary:
      'Update a membership: terms are staged (quantity_band_set / allowance_set rewrite a whole group; omitted, the fields merge); product_track_mode applies at once.',
  })
  @ApiOkResponse({ type: PlanDto })
  @ApiErrors('PLAN_NOT_FOUND', 'PRODUCT_NOT_ON_PLAN', 'INVALID_MEMBERSHIP', 'ENTITY_ARCHIVED')
  async updateProduct(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Param('product_id') productId: string,
    @Body() body: UpdatePlanProductDto,
  ) {
    await this.commands.execute(
      new UpdatePlanProductCommand(
        actor,
        id,
        productId,
        termsInput(body),
        { band: body.quantity_band_set, allowance: body.allowance_set },
        body.product_track_mode,
      ),
    );
    return this.queries.execute(new GetPlanQuery(actor, id));
  }

  @OperationId('removePlanProduct')
  @Delete(':id/products/:product_id')
  @HttpCode(204)
  @RequireScope('plans:write')
  @ApiOperation({ summary: 'Remove a product from the working draft; published versions keep their snapshot.' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors('PLAN_NOT_FOUND', 'PRODUCT_NOT_ON_PLAN', 'ENTITY_ARCHIVED')
  async removeProduct(@CurrentActor() actor: Actor, @Param('id') id: string, @Param('product_id') productId: string) {
    await this.commands.execute(new RemovePlanProductCommand(actor, id, productId));
  }

  @OperationId('listPlanVersions')
  @Get(':id/versions')
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'The plan’s versions, newest number first (default all but draft; limit default 100, max 200).' })
  @ApiOkResponse({ type: PlanVersionListDto })
  @ApiErrors('PLAN_NOT_FOUND')
  versions(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListPlanVersionsQueryDto) {
    return this.queries.execute(
      new ListPlanVersionsQuery(
        actor,
        id,
        { statuses: query.status, archivedReason: query.archived_reason, includeUsageCount: query.include === 'usage_count' },
        query.limit,
        query.cursor,
      ),
    );
  }

  @OperationId('getPlanVersion')
  @Get(':id/versions/:version')
  @RequireScope('plans:read')
  @ApiOperation({ summary: 'A version’s snapshot: its frozen fields and memberships, each resolved to a product version.' })
  @ApiOkResponse({ type: PlanVersionDto })
  @ApiErrors('PLAN_NOT_FOUND', 'VERSION_NOT_FOUND')
  version(@CurrentActor() actor: Actor, @Param('id') id: string, @Param('version', VersionNumberPipe) version: VersionNumber) {
    return this.queries.execute(new GetPlanVersionQuery(actor, id, version));
  }

  @OperationId('updatePlanVersion')
  @Patch(':id/versions/:version')
  @RequireScope('plans:write')
  @ApiOperation({ summary: 'Name or annotate a version ("" clears, absent leaves); creates no version.' })
  @ApiOkResponse({ type: PlanVersionDto })
  @ApiErrors('PLAN_NOT_FOUND', 'VERSION_NOT_FOUND')
  async annotate(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Param('version', VersionNumberPipe) version: VersionNumber,
    @Body() body: AnnotateVersionDto,
  ) {
    await this.commands.execute(
      new AnnotatePlanVersionCommand(actor, id, version, { releaseName: body.release_name, releaseNote: body.release_note }),
    );
    return this.queries.execute(new GetPlanVersionQuery(actor, id, version));
  }
}
