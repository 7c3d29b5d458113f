import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateUserCommand, ListUsersQuery, ROLES, UserView } from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import { IsString } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { ApiErrors } from '../http/error-catalog';
import { RequireScope } from '../http/auth/route-access';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { ApiProperty } from '../http/api-property';
import { OperationId } from '../http/operation-id';

export class CreateUserDto {
  @ApiProperty({ example: 'finance@acme.example' }) @IsString() email!: string;
  @ApiProperty({ example: 'a long passphrase', description: '12 to 256 characters.' }) @IsString() password!: string;
  @ApiProperty({
    enum: ROLES,
    example: 'admin',
    description: 'owner/admin: every scope; developer: reads and non-administrative writes; viewer: reads.',
  })
  @IsString()
  role!: string;
}

export class UserDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d02' }) id!: string;
  @ApiProperty({ example: 'user' }) object!: 'user';
  @ApiProperty({ example: 'finance@acme.example' }) email!: string;
  @ApiProperty({ enum: ROLES, example: 'admin' }) role!: string;
  @ApiProperty({ example: '2026-11-22T09:30:00.000Z' }) created_at!: string;
}

export class UserListDto {
  @ApiProperty({ type: [UserDto] }) data!: UserDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

function toDto(user: UserView): UserDto {
  return { id: user.id, object: 'user', email: user.email, role: user.role, created_at: user.createdAt.toISOString() };
}

@ApiTags('Users')
@Controller('users')
export class UsersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createUser')
  @Post()
  @HttpCode(201)
  @RequireScope('users:write')
  @ApiOperation({ summary: 'Invite a user with a role; the role may not exceed the caller’s scopes.' })
  @ApiCreatedResponse({ type: UserDto })
  @ApiErrors('ALREADY_EXISTS', 'SCOPE_NOT_GRANTABLE', 'HUMAN_SESSION_REQUIRED', 'OWNER_ROLE_REQUIRED')
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateUserDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UserDto> {
    const user = await this.commands.execute(new CreateUserCommand(actor, body));
    void reply.header('Location', `/v1/users/${user.id}`);
    return toDto(user);
  }

  @OperationId('listUsers')
  @Get()
  @RequireScope('users:read')
  @ApiOperation({ summary: 'List the organization’s users.' })
  @ApiOkResponse({ type: UserListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListQueryDto): Promise<UserListDto> {
    const page = await this.queries.execute(new ListUsersQuery(actor, query.pageLimit, query.cursor));
    return { data: page.data.map(toDto), pagination: page.pagination };
  }
}
