import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CostInput,
  CreateCostCommand,
  EvaluateFormulaQuery,
  GetCostQuery,
  ListCostConsumersQuery,
  ListCostsQuery,
  RemoveCostCommand,
  RestoreCostCommand,
  UpdateCostCommand,
} from '@app/catalog';
import { invalidParameter } from '@app/shared-kernel';
import type { Actor } from '@app/shared-kernel';
import { PureResponse } from '../http/idempotency.interceptor';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ListQueryDto } from '../http/list-query.dto';
import {
  ConsumerListDto,
  CostDto,
  CostListDto,
  CreateCostDto,
  EvaluateFormulaDto,
  FormulaEvaluationDto,
  ListCostsQueryDto,
  UpdateCostDto,
} from './catalog.dto';
import { OperationId } from '../http/operation-id';

export function costInput(body: CreateCostDto): CostInput {
  return {
    key: body.key,
    amount: body.amount,
    expression: body.expression,
    description: body.description,
    metadata: body.metadata,
    translations: body.translations,
    productId: body.product_id,
  };
}

/** Valid request bodies for Swagger UI's "Try it out" (amount and expression exclude each other). */
export const COST_EXAMPLES = {
  amount: { summary: 'A static amount', value: { key: 'platform_fee', amount: '12.50', description: 'Platform fee per seat' } },
  expression: {
    summary: 'A formula (it may name other cost keys that exist, e.g. platform_fee * 1.2)',
    value: { key: 'platform_fee_eu', expression: '12.50 * 1.2' },
  },
};

const FORMULA_ERRORS = ['FORMULA_SYNTAX_ERROR', 'FORMULA_UNKNOWN_KEY', 'FORMULA_CYCLE', 'FORMULA_EVALUATION_ERROR'] as const;

@ApiTags('Costs')
@Controller('costs')
export class CostsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('listCosts')
  @Get()
  @RequireScope('costs:read')
  @ApiOperation({ summary: 'List active costs, newest first: ORG, PRODUCT (the roll-up across products) or both.' })
  @ApiOkResponse({ type: CostListDto })
  list(@CurrentActor() actor: Actor, @Query() query: ListCostsQueryDto) {
    return this.queries.execute(new ListCostsQuery(actor, query.scope, query.pageLimit, query.cursor));
  }

  @OperationId('createCost')
  @Post()
  @HttpCode(201)
  @RequireScope('costs:write')
  @ApiOperation({ summary: 'Create an ORG-scoped cost: a key every product of the workspace can reference.' })
  @ApiCreatedResponse({ type: CostDto })
  @ApiBody({ type: CreateCostDto, examples: COST_EXAMPLES })
  @ApiErrors('ALREADY_EXISTS', ...FORMULA_ERRORS)
  async create(@CurrentActor() actor: Actor, @Body() body: CreateCostDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const id = await this.commands.execute(new CreateCostCommand(actor, undefined, costInput(body)));
    void reply.header('Location', `/v1/costs/${id}`);
    return this.queries.execute(new GetCostQuery(actor, id));
  }

  @OperationId('evaluateCosts')
  @Post('evaluate')
  @HttpCode(200)
  @PureResponse()
  @RequireScope('costs:read')
  @ApiOperation({
    summary:
      'Evaluate a formula and explain it (each key with the revision it resolved to; what-if values), or preview a cascade: each consumer’s unit price before and after a new ORG value. Changes nothing.',
  })
  @ApiOkResponse({ type: FormulaEvaluationDto })
  @ApiBody({
    type: EvaluateFormulaDto,
    examples: {
      explain: {
        summary: 'Explain a formula (what-if values)',
        value: { expression: 'round(seats * 12.5, 2)', values: { seats: '3' } },
      },
      preview: { summary: 'Preview a cascade', value: { cost_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07', amount: '14.00' } },
    },
  })
  @ApiErrors('COST_NOT_FOUND', 'PRODUCT_NOT_FOUND', ...FORMULA_ERRORS)
  evaluate(@CurrentActor() actor: Actor, @Body() body: EvaluateFormulaDto) {
    if (body.cost_id !== undefined) {
      const explainOnly = (['product_id', 'view', 'as_of', 'values'] as const).find((field) => body[field] !== undefined);
      if (explainOnly)
        throw invalidParameter(
          explainOnly,
          'MUTUALLY_EXCLUSIVE',
          `${explainOnly} belongs to the explain form, not to a cascade preview (cost_id).`,
        );
      if ((body.amount === undefined) === (body.expression === undefined)) {
        throw invalidParameter('amount', 'MUTUALLY_EXCLUSIVE', 'A cascade preview takes exactly one of amount or expression.');
      }
      return this.queries.execute(
        new EvaluateFormulaQuery(actor, {
          preview: { costId: body.cost_id, amount: body.amount, expression: body.expression, effectiveAt: body.effective_at },
        }),
      );
    }
    if (body.expression === undefined)
      throw invalidParameter('expression', 'REQUIRED', 'Send an expression to evaluate, or a cost_id to preview a cascade.');
    const previewOnly = (['amount', 'effective_at'] as const).find((field) => body[field] !== undefined);
    if (previewOnly)
      throw invalidParameter(previewOnly, 'MUTUALLY_EXCLUSIVE', `${previewOnly} belongs to a cascade preview (with cost_id).`);
    if (body.view !== undefined && body.product_id === undefined)
      throw invalidParameter('view', 'INVALID_VALUE', 'view needs a product_id.');
    return this.queries.execute(
      new EvaluateFormulaQuery(actor, {
        explain: {
          expression: body.expression,
          productId: body.product_id,
          view: body.view,
          asOf: body.as_of,
          values: body.values,
        },
      }),
    );
  }

  @OperationId('getCost')
  @Get(':id')
  @RequireScope('costs:read')
  @ApiOperation({ summary: 'Get a cost of either scope; a retired ORG cost is not served.' })
  @ApiOkResponse({ type: CostDto })
  @ApiErrors('COST_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetCostQuery(actor, id));
  }

  @OperationId('updateCost')
  @Patch(':id')
  @RequireScope('costs:write')
  @ApiOperation({
    summary:
      'Update a cost: a new amount or expression is a new revision (effective_at for ORG costs, staged in the product’s draft for PRODUCT costs); description, translations, metadata and requires_continuous_coverage apply live.',
  })
  @ApiOkResponse({ type: CostDto })
  @ApiBody({
    type: UpdateCostDto,
    examples: {
      value: { summary: 'A new value from a date', value: { amount: '14.00', effective_at: '2027-01-01T00:00:00Z' } },
      formula: { summary: 'A new formula, now', value: { expression: 'platform_fee * 1.25' } },
      display: { summary: 'A display edit (live, no revision)', value: { description: 'Platform fee per active seat' } },
    },
  })
  @ApiErrors(
    'COST_NOT_FOUND',
    'DRAFT_NOT_SUPPORTED',
    'PUBLISH_CONTROLS_NOT_ALLOWED',
    'COST_NOT_ACTIVE',
    'ENTITY_ARCHIVED',
    'CONSUMER_WOULD_BREAK',
    ...FORMULA_ERRORS,
  )
  async update(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: UpdateCostDto) {
    await this.commands.execute(
      new UpdateCostCommand(actor, id, {
        amount: body.amount,
        expression: body.expression,
        description: body.description,
        metadata: body.metadata,
        translations: body.translations,
        requiresContinuousCoverage: body.requires_continuous_coverage,
        saveAsDraft: body.save_as_draft,
        effectiveAt: body.effective_at,
      }),
    );
    return this.queries.execute(new GetCostQuery(actor, id));
  }

  @OperationId('deleteCost')
  @Delete(':id')
  @HttpCode(204)
  @RequireScope('costs:write')
  @ApiOperation({
    summary:
      'Remove a cost: an ORG cost retires (its consumers republish without it); a released PRODUCT cost leaves the working draft; a never-released one is deleted.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiErrors('COST_NOT_FOUND', 'ENTITY_ARCHIVED')
  async remove(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new RemoveCostCommand(actor, id));
  }

  @OperationId('listCostConsumers')
  @Get(':id/consumers')
  @RequireScope('costs:read')
  @ApiOperation({
    summary: 'Consumers: for an ORG cost every ACTIVE product whose live version resolved it; for a PRODUCT cost its product.',
  })
  @ApiOkResponse({ type: ConsumerListDto })
  @ApiErrors('COST_NOT_FOUND')
  consumers(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListQueryDto) {
    return this.queries.execute(new ListCostConsumersQuery(actor, id, query.pageLimit, query.cursor));
  }

  @OperationId('restoreCost')
  @Post(':id/restore')
  @HttpCode(200)
  @RequireScope('costs:write')
  @ApiOperation({
    summary: 'Restore a removed or retired cost; 409 when the live version (or, for ORG, the key) is no longer its.',
  })
  @ApiOkResponse({ type: CostDto })
  @ApiErrors('COST_NOT_FOUND', 'COST_KEY_NOT_IN_HEAD', 'ALREADY_EXISTS', 'ENTITY_ARCHIVED')
  async restore(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new RestoreCostCommand(actor, id));
    return this.queries.execute(new GetCostQuery(actor, id));
  }
}
