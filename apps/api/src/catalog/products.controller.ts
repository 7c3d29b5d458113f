import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateCostCommand,
  CreateProductCommand,
  DiscardProductDraftCommand,
  GetCostQuery,
  GetProductDraftQuery,
  GetProductQuery,
  ListProductCostsQuery,
  ListProductsQuery,
  ListProductVersionsQuery,
  OpenProductDraftCommand,
  UpdateProductCommand,
} from '@app/catalog';
import { invalidParameter } from '@app/shared-kernel';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ListQueryDto } from '../http/list-query.dto';
import {
  CostDto,
  CostListDto,
  CreateCostDto,
  CreateProductDto,
  ListProductCostsQueryDto,
  OpenDraftDto,
  ProductDto,
  ProductListDto,
  ProductVersionListDto,
  StagedDraftDto,
  UpdateProductDto,
} from './catalog.dto';
import { COST_EXAMPLES, costInput } from './costs.controller';
import { OperationId } from '../http/operation-id';

@ApiTags('Products')
@Controller('products')
export class ProductsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createProduct')
  @Post()
  @HttpCode(201)
  @RequireScope('products:write')
  @ApiOperation({ summary: 'Create a product (status draft); a price_expression is staged in its first draft.' })
  @ApiCreatedResponse({ type: ProductDto })
  @ApiBody({
    type: CreateProductDto,
    examples: {
      plain: {
        summary: 'A product; costs and a price formula follow',
        value: { name: 'Seats', description: 'Per-seat licence' },
      },
      priced: {
        summary: 'Priced by a formula (a formula may name cost keys that exist, e.g. platform_fee * 2)',
        value: { name: 'Seats', price_expression: '12.50 * 2' },
      },
    },
  })
  @ApiErrors('FORMULA_SYNTAX_ERROR', 'FORMULA_UNKNOWN_KEY', 'FORMULA_CYCLE', 'FORMULA_EVALUATION_ERROR')
  async create(@CurrentActor() actor: Actor, @Body() body: CreateProductDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const id = await this.commands.execute(
      new CreateProductCommand(actor, {
        name: body.name,
        description: body.description,
        metadata: body.metadata,
        priceExpression: body.price_expression,
      }),
    );
    void reply.header('Location', `/v1/products/${id}`);
    return this.queries.execute(new GetProductQuery(actor, id));
  }

  @OperationId('listProducts')
  @Get()
  @RequireScope('products:read')
  @ApiOperation({ summary: 'List products, newest first.' })
  @ApiOkResponse({ type: ProductListDto })
  list(@CurrentActor() actor: Actor, @Query() query: ListQueryDto) {
    return this.queries.execute(new ListProductsQuery(actor, query.pageLimit, query.cursor));
  }

  @OperationId('getProduct')
  @Get(':id')
  @RequireScope('products:read')
  @ApiOperation({ summary: 'Get a product: live fields, the working formula, the live and draft versions.' })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors('PRODUCT_NOT_FOUND')
  get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetProductQuery(actor, id));
  }

  @OperationId('updateProduct')
  @Patch(':id')
  @RequireScope('products:write')
  @ApiOperation({
    summary:
      'Update a product: name, description and metadata apply live; price_expression is staged; status "archived" archives it.',
  })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors(
    'PRODUCT_NOT_FOUND',
    'ENTITY_ARCHIVED',
    'FORMULA_SYNTAX_ERROR',
    'FORMULA_UNKNOWN_KEY',
    'FORMULA_CYCLE',
    'FORMULA_EVALUATION_ERROR',
  )
  async update(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: UpdateProductDto) {
    await this.commands.execute(
      new UpdateProductCommand(actor, id, {
        name: body.name,
        description: body.description,
        metadata: body.metadata,
        priceExpression: body.price_expression,
        status: body.status,
      }),
    );
    return this.queries.execute(new GetProductQuery(actor, id));
  }

  @OperationId('listProductVersions')
  @Get(':id/versions')
  @RequireScope('products:read')
  @ApiOperation({ summary: 'The product’s versions, newest number first, with their unit price and materialized costs.' })
  @ApiOkResponse({ type: ProductVersionListDto })
  @ApiErrors('PRODUCT_NOT_FOUND')
  versions(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListQueryDto) {
    return this.queries.execute(new ListProductVersionsQuery(actor, id, query.pageLimit, query.cursor));
  }

  @OperationId('getProductDraft')
  @Get(':id/draft')
  @RequireScope('products:read')
  @ApiOperation({ summary: 'The staged draft and its diff from its base; 404 STAGED_DRAFT_NOT_FOUND when none is open.' })
  @ApiOkResponse({ type: StagedDraftDto })
  @ApiErrors('PRODUCT_NOT_FOUND', 'STAGED_DRAFT_NOT_FOUND')
  draft(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return this.queries.execute(new GetProductDraftQuery(actor, id));
  }

  @OperationId('openProductDraft')
  @Post(':id/draft')
  @HttpCode(200)
  @RequireScope('products:write')
  @ApiOperation({
    summary:
      'Open the working draft on the live version or a scheduled release; re-bases an edit-free draft; a draft on the same base is returned as is.',
  })
  @ApiOkResponse({ type: StagedDraftDto })
  @ApiErrors('PRODUCT_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_BASE_VERSION', 'DRAFT_HAS_STAGED_EDITS', 'ENTITY_ARCHIVED')
  async openDraft(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: OpenDraftDto) {
    await this.commands.execute(new OpenProductDraftCommand(actor, id, body.base_version_id));
    return this.queries.execute(new GetProductDraftQuery(actor, id));
  }

  @OperationId('discardProductDraft')
  @Delete(':id/draft')
  @HttpCode(204)
  @RequireScope('products:write')
  @ApiOperation({ summary: 'Discard the working draft: its staged edits are dropped, costs removed in it come back.' })
  @ApiNoContentResponse({ description: 'Discarded.' })
  @ApiErrors('PRODUCT_NOT_FOUND', 'STAGED_DRAFT_NOT_FOUND')
  async discardDraft(@CurrentActor() actor: Actor, @Param('id') id: string) {
    await this.commands.execute(new DiscardProductDraftCommand(actor, id));
  }

  @OperationId('listProductCosts')
  @Get(':id/costs')
  @RequireScope('products:read')
  @ApiOperation({
    summary:
      'The product’s costs: by default live values where the live version carries them, else staged ones; view=draft or view=head; product_version_id for a version’s materialized rows.',
  })
  @ApiOkResponse({ type: CostListDto })
  @ApiErrors('PRODUCT_NOT_FOUND', 'VERSION_NOT_FOUND')
  costs(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListProductCostsQueryDto) {
    if (query.view !== undefined && query.product_version_id !== undefined) {
      throw invalidParameter('product_version_id', 'MUTUALLY_EXCLUSIVE', 'view and product_version_id are mutually exclusive.');
    }
    const view =
      query.product_version_id !== undefined
        ? { productVersionId: query.product_version_id }
        : { view: query.view ?? ('default' as const) };
    return this.queries.execute(new ListProductCostsQuery(actor, id, view, query.pageLimit, query.cursor));
  }

  @OperationId('createProductCost')
  @Post(':id/costs')
  @HttpCode(201)
  @RequireScope('products:write')
  @ApiOperation({ summary: 'Create a PRODUCT-scoped cost; it reaches billing when the product’s working draft goes live.' })
  @ApiCreatedResponse({ type: CostDto })
  @ApiBody({ type: CreateCostDto, examples: COST_EXAMPLES })
  @ApiErrors(
    'PRODUCT_NOT_FOUND',
    'ALREADY_EXISTS',
    'ENTITY_ARCHIVED',
    'FORMULA_SYNTAX_ERROR',
    'FORMULA_UNKNOWN_KEY',
    'FORMULA_CYCLE',
    'FORMULA_EVALUATION_ERROR',
  )
  async createCost(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: CreateCostDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const costId = await this.commands.execute(new CreateCostCommand(actor, id, costInput(body)));
    void reply.header('Location', `/v1/costs/${costId}`);
    return this.queries.execute(new GetCostQuery(actor, costId));
  }
}
