import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateCustomerCommand, customerResponse, CustomerView, GetCustomerQuery, ListCustomersQuery } from '@app/identity';
import type { Actor } from '@app/shared-kernel';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { ApiErrors } from '../http/error-catalog';
import { RequireScope } from '../http/auth/route-access';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';
import { OperationId } from '../http/operation-id';

export class CreateCustomerDto {
  @ApiProperty({ example: 'Acme GmbH' }) @IsString() name!: string;
  @ApiPropertyOptional({ example: 'billing@acme.example' }) @IsOptional() @IsString() email?: string;
  @ApiProperty({ example: 'EUR', description: 'ISO 4217; the primary wallet is created in this currency.' })
  @IsString()
  currency!: string;
  @ApiPropertyOptional({ example: 'crm-4711', description: 'Unique in the workspace.' })
  @IsOptional()
  @IsString()
  external_id?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { segment: 'enterprise' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class ListCustomersQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'crm-4711' }) @IsOptional() @IsString() @MaxLength(255) external_id?: string;
  @ApiPropertyOptional({ example: 'billing@acme.example' }) @IsOptional() @IsString() @MaxLength(254) email?: string;
}

export class CustomerDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d04' }) id!: string;
  @ApiProperty({ example: 'customer' }) object!: 'customer';
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01' }) workspace_id!: string;
  @ApiProperty({ example: 'Acme GmbH' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: 'billing@acme.example' }) email!: string | null;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({
    example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d05',
    description: 'The customer’s primary wallet: opened with the customer, in its currency; changes with make_primary.',
  })
  primary_wallet_id!: string;
  @ApiProperty({ type: String, nullable: true, example: 'crm-4711' }) external_id!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { segment: 'enterprise' } })
  metadata!: Record<string, string>;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) created_at!: string;
}

export class CustomerListDto {
  @ApiProperty({ type: [CustomerDto] }) data!: CustomerDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
}

function toDto(customer: CustomerView): CustomerDto {
  return customerResponse(customer);
}

@ApiTags('Customers')
@Controller('customers')
export class CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('createCustomer')
  @Post()
  @HttpCode(201)
  @RequireScope('customers:write')
  @ApiOperation({ summary: 'Create a customer and, in the same transaction, its primary wallet in its currency.' })
  @ApiCreatedResponse({ type: CustomerDto })
  @ApiErrors('ALREADY_EXISTS')
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateCustomerDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CustomerDto> {
    const customer = await this.commands.execute(
      new CreateCustomerCommand(actor, {
        name: body.name,
        email: body.email,
        currency: body.currency,
        externalId: body.external_id,
        metadata: body.metadata,
      }),
    );
    void reply.header('Location', `/v1/customers/${customer.id}`);
    return toDto(customer);
  }

  @OperationId('listCustomers')
  @Get()
  @RequireScope('customers:read')
  @ApiOperation({ summary: 'List customers of the workspace, newest first.' })
  @ApiOkResponse({ type: CustomerListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListCustomersQueryDto): Promise<CustomerListDto> {
    const page = await this.queries.execute(
      new ListCustomersQuery(actor, query.pageLimit, query.cursor, { externalId: query.external_id, email: query.email }),
    );
    return { data: page.data.map(toDto), pagination: page.pagination };
  }

  @OperationId('getCustomer')
  @Get(':id')
  @RequireScope('customers:read')
  @ApiOperation({ summary: 'Get a customer.' })
  @ApiOkResponse({ type: CustomerDto })
  @ApiErrors('CUSTOMER_NOT_FOUND')
  async get(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<CustomerDto> {
    return toDto(await this.queries.execute(new GetCustomerQuery(actor, id)));
  }
}
