import { Body, Controller, Delete, Get, HttpCode, Ip, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateSessionCommand, EndSessionCommand, SCOPE_CATALOG } from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { IsOptional, IsString } from 'class-validator';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { Public, RequireAuthentication } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { OperationId } from '../http/operation-id';

export class CreateSessionDto {
  @ApiPropertyOptional({
    example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01',
    description:
      'The user’s organization (an address is unique per organization). Required, except for users who existed before addresses became unique per organization.',
  })
  @IsOptional()
  @IsString()
  organization_id?: string;
  @ApiProperty({ example: 'owner@example.com' }) @IsString() email!: string;
  @ApiProperty({ example: 'correct horse battery staple' }) @IsString() password!: string;
}

export class SessionDto {
  @ApiProperty({ example: 'session' }) object!: 'session';
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d03' }) id!: string;
  @ApiProperty({ example: 'sess_…', description: 'Shown once; send as `Authorization: Bearer <token>`.' }) token!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02' }) user_id!: string;
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01' }) organization_id!: string;
  @ApiProperty({ example: '2026-11-23T00:00:00.000Z' }) expires_at!: string;
}

class PermissionDto {
  @ApiProperty({ example: 'wallets:write' }) scope!: string;
  @ApiProperty({ example: 'wallets' }) resource!: string;
  @ApiProperty({ enum: ['read', 'write'], example: 'write' }) access!: string;
  @ApiProperty({ example: 'Create, change and act on wallets, their ledger, holds and top-ups.' }) description!: string;
}

export class PermissionListDto {
  @ApiProperty({ example: 'list' }) object!: 'list';
  @ApiProperty({ type: [PermissionDto] }) data!: PermissionDto[];
}

@ApiTags('Sessions and permissions')
@Controller()
export class SessionsController {
  constructor(private readonly commands: CommandBus) {}

  @OperationId('createSession')
  @Post('sessions')
  @Public()
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Sign in with organization_id, email and password; returns a session token (a human principal). Throttled per ' +
      'account and per client address with a growing delay: 429 RATE_LIMITED with Retry-After, alike for unknown accounts.',
  })
  @ApiCreatedResponse({ type: SessionDto })
  @ApiErrors('INVALID_CREDENTIALS')
  async create(
    @Body() body: CreateSessionDto,
    @Ip() clientAddress: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionDto> {
    const session = await this.commands.execute(
      new CreateSessionCommand(body.email, body.password, body.organization_id, clientAddress),
    );
    // A session is addressed as the caller's current one (DELETE signs it out).
    void reply.header('Location', '/v1/sessions/current');
    return {
      object: 'session',
      id: session.id,
      token: session.token,
      user_id: session.userId,
      organization_id: session.organizationId,
      expires_at: session.expiresAt.toISOString(),
    };
  }

  @OperationId('deleteCurrentSession')
  @Delete('sessions/current')
  @HttpCode(204)
  @RequireAuthentication()
  @ApiOperation({ summary: 'Sign out: the session token stops working on every instance.' })
  @ApiNoContentResponse()
  @ApiErrors('NOT_A_SESSION')
  async end(@CurrentActor() actor: Actor): Promise<void> {
    await this.commands.execute(new EndSessionCommand(actor));
  }

  @OperationId('listPermissions')
  @Get('permissions')
  @RequireAuthentication()
  @ApiOperation({ summary: 'The scope catalog: every scope an API key can carry.' })
  @ApiOkResponse({ type: PermissionListDto })
  permissions(): PermissionListDto {
    return { object: 'list', data: SCOPE_CATALOG.map((entry) => ({ ...entry })) };
  }
}
