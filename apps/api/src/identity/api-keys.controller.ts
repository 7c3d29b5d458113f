import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateApiKeyCommand,
  ListApiKeysQuery,
  RevokeApiKeyCommand,
  RotateApiKeyCommand,
  UpdateApiKeyCommand,
} from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { ApiErrors } from '../http/error-catalog';
import { RequireScope } from '../http/auth/route-access';
import { ListQueryDto } from '../http/list-query.dto';
import {
  ApiKeyDto,
  ApiKeyListDto,
  ApiKeyWithSecretDto,
  CreateApiKeyDto,
  RotatedApiKeyDto,
  toApiKeyDto,
  UpdateApiKeyDto,
} from './api-keys.dto';
import { OperationId } from '../http/operation-id';

@ApiTags('API keys')
@Controller('api_keys')
export class ApiKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('listApiKeys')
  @Get()
  @RequireScope('api_keys:read')
  @ApiOperation({ summary: 'List API keys (metadata only, never secrets), newest first.' })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListQueryDto): Promise<ApiKeyListDto> {
    const page = await this.queries.execute(new ListApiKeysQuery(actor, query.pageLimit, query.cursor));
    return { data: page.data.map(toApiKeyDto), pagination: page.pagination };
  }

  @OperationId('createApiKey')
  @Post()
  @HttpCode(201)
  @RequireScope('api_keys:write')
  @ApiOperation({ summary: 'Create an API key; its secret is returned once.' })
  @ApiCreatedResponse({ type: ApiKeyWithSecretDto })
  @ApiErrors('SCOPE_NOT_GRANTABLE', 'KEY_TYPE_NOT_GRANTABLE', 'EXPIRY_NOT_GRANTABLE', 'IP_RANGE_NOT_GRANTABLE')
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateApiKeyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApiKeyWithSecretDto> {
    const { key, secret } = await this.commands.execute(
      new CreateApiKeyCommand(actor, {
        name: body.name,
        scopes: body.scopes,
        allowedIps: body.allowed_ips,
        expiresAt: body.expires_at,
        keyType: body.key_type,
      }),
    );
    void reply.header('Location', `/v1/api_keys/${key.id}`);
    return { ...toApiKeyDto(key), secret };
  }

  @OperationId('updateApiKey')
  @Patch(':id')
  @RequireScope('api_keys:write')
  @ApiOperation({
    summary:
      'Rename or re-scope an active key (merge-patch; absent or null leaves a field); effective on every instance within a second.',
    description:
      'scopes and allowed_ips replace the key’s lists and stay within the caller’s own, as on create; the caller also needs ' +
      'every scope the key holds now (as to rotate or revoke it). A sandbox principal cannot see live keys (404). A patch ' +
      'that changes nothing writes nothing. No Idempotency-Key needed: applying the same patch twice is the same change.',
  })
  @ApiBody({
    type: UpdateApiKeyDto,
    examples: {
      rename: { summary: 'Rename', value: { name: 'Billing worker (EU)' } },
      narrow: { summary: 'Narrow the scopes (the removed one is refused at once)', value: { scopes: ['wallets:read'] } },
      addresses: { summary: 'Restrict to an office network', value: { allowed_ips: ['203.0.113.0/24'] } },
    },
  })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(
    'API_KEY_NOT_FOUND',
    'API_KEY_NOT_ACTIVE',
    'KEY_TYPE_NOT_GRANTABLE',
    'SCOPE_NOT_GRANTABLE',
    'IP_RANGE_NOT_GRANTABLE',
    'CONFLICT',
  )
  async update(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: UpdateApiKeyDto): Promise<ApiKeyDto> {
    return toApiKeyDto(
      await this.commands.execute(
        new UpdateApiKeyCommand(actor, id, { name: body.name, scopes: body.scopes, allowedIps: body.allowed_ips }),
      ),
    );
  }

  @OperationId('rotateApiKey')
  @Post(':id/rotate')
  @HttpCode(201)
  @RequireScope('api_keys:write')
  @ApiOperation({
    summary: 'Rotate: a new key with the same type, name, scopes, IPs and expiry; the old one works 24 hours more.',
  })
  @ApiCreatedResponse({ type: RotatedApiKeyDto })
  @ApiErrors('API_KEY_NOT_FOUND', 'API_KEY_NOT_ACTIVE', 'KEY_TYPE_NOT_GRANTABLE', 'SCOPE_NOT_GRANTABLE', 'CONFLICT')
  async rotate(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RotatedApiKeyDto> {
    const { key, secret, rotatedFrom } = await this.commands.execute(new RotateApiKeyCommand(actor, id));
    void reply.header('Location', `/v1/api_keys/${key.id}`);
    return {
      ...toApiKeyDto(key),
      secret,
      rotated_from: { id: rotatedFrom.id, revokes_at: rotatedFrom.revokesAt!.toISOString() },
    };
  }

  @OperationId('revokeApiKey')
  @Post(':id/revoke')
  @HttpCode(200)
  @RequireScope('api_keys:write')
  @ApiOperation({ summary: 'Revoke at once: the next request with this key gets 401 API_KEY_REVOKED.' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors('API_KEY_NOT_FOUND', 'KEY_TYPE_NOT_GRANTABLE', 'SCOPE_NOT_GRANTABLE', 'CONFLICT')
  async revoke(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<ApiKeyDto> {
    return toApiKeyDto(await this.commands.execute(new RevokeApiKeyCommand(actor, id)));
  }
}
