import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '@app/shared-kernel';
import {
  CreateWebhookEndpointCommand,
  DeleteWebhookEndpointCommand,
  GetWebhookEndpointQuery,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  RotateWebhookSecretCommand,
  UpdateWebhookEndpointCommand,
} from '@app/webhooks';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ListQueryDto } from '../http/list-query.dto';
import { OperationId } from '../http/operation-id';
import {
  CreateWebhookEndpointDto,
  ListWebhookDeliveriesQueryDto,
  toWebhookDeliveryDto,
  toWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookDeliveryListDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointWithSecretDto,
} from './webhook-endpoints.dto';

@ApiTags('Webhook endpoints')
@Controller('webhook_endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createWebhookEndpoint')
  @Post()
  @HttpCode(201)
  @RequireScope('webhook_endpoints:write')
  @ApiOperation({ summary: 'Create a webhook endpoint; its signing secret is returned once.' })
  @ApiCreatedResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrors('WEBHOOK_URL_NOT_ALLOWED')
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateWebhookEndpointDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.commands.execute(
      new CreateWebhookEndpointCommand(actor, {
        url: body.url,
        enabledEvents: body.enabled_events,
        description: body.description,
        metadata: body.metadata,
      }),
    );
    void reply.header('Location', `/v1/webhook_endpoints/${endpoint.id}`);
    return { ...toWebhookEndpointDto(endpoint), secret };
  }

  @OperationId('listWebhookEndpoints')
  @Get()
  @RequireScope('webhook_endpoints:read')
  @ApiOperation({ summary: 'List the workspace’s webhook endpoints (never their secrets), newest first.' })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListQueryDto): Promise<WebhookEndpointListDto> {
    const page = await this.queries.execute(new ListWebhookEndpointsQuery(actor, query.pageLimit, query.cursor));
    return { data: page.data.map(toWebhookEndpointDto), pagination: page.pagination };
  }

  @OperationId('getWebhookEndpoint')
  @Get(':id')
  @RequireScope('webhook_endpoints:read')
  @ApiOperation({ summary: 'Get a webhook endpoint (never its secret).' })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  async get(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<WebhookEndpointDto> {
    return toWebhookEndpointDto(await this.queries.execute(new GetWebhookEndpointQuery(actor, id)));
  }

  @OperationId('updateWebhookEndpoint')
  @Patch(':id')
  @RequireScope('webhook_endpoints:write')
  @ApiOperation({
    summary:
      'Change a webhook endpoint’s URL, event types, description, metadata or status (merge-patch; null leaves a field unchanged).',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED')
  async update(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    const endpoint = await this.commands.execute(
      new UpdateWebhookEndpointCommand(actor, id, {
        url: body.url,
        enabledEvents: body.enabled_events,
        description: body.description,
        metadata: body.metadata,
        status: body.status,
      }),
    );
    return toWebhookEndpointDto(endpoint);
  }

  @OperationId('deleteWebhookEndpoint')
  @Delete(':id')
  @HttpCode(204)
  @RequireScope('webhook_endpoints:write')
  @ApiOperation({ summary: 'Delete a webhook endpoint; its pending deliveries are dropped with it.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  async remove(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<void> {
    await this.commands.execute(new DeleteWebhookEndpointCommand(actor, id));
  }

  @OperationId('rotateWebhookEndpointSecret')
  @Post(':id/rotate_secret')
  @HttpCode(200)
  @RequireScope('webhook_endpoints:write')
  @ApiOperation({
    summary:
      'Rotate the signing secret: the new one is returned once; the previous one keeps signing beside it for 24 hours ' +
      '(each delivery then carries two signatures).',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretDto })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  async rotateSecret(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.commands.execute(new RotateWebhookSecretCommand(actor, id));
    return { ...toWebhookEndpointDto(endpoint), secret };
  }

  @OperationId('listWebhookDeliveries')
  @Get(':id/deliveries')
  @RequireScope('webhook_endpoints:read')
  @ApiOperation({ summary: 'List the endpoint’s deliveries, newest first, with the figures of each one’s latest attempt.' })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  @ApiErrors('WEBHOOK_ENDPOINT_NOT_FOUND')
  async deliveries(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Query() query: ListWebhookDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    const page = await this.queries.execute(
      new ListWebhookDeliveriesQuery(actor, id, query.pageLimit, query.cursor, { eventId: query.event_id, status: query.status }),
    );
    return { data: page.data.map(toWebhookDeliveryDto), pagination: page.pagination };
  }
}
