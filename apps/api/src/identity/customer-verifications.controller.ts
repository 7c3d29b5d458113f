import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateSandboxVerificationCommand,
  GetVerificationQuery,
  ListVerificationsQuery,
  OverrideVerificationStatusCommand,
  ProcessVerificationWebhookCommand,
  VerificationStatus,
  VerificationSummaryView,
  VerificationType,
  VerificationView,
  verificationResponse,
  verificationSummaryResponse,
} from '@app/identity';
import { type Actor, WEBHOOK_SIGNATURE_HEADER } from '@app/shared-kernel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { Public, RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import {
  CreateSandboxVerificationDto,
  CustomerVerificationDto,
  CustomerVerificationListDto,
  CustomerVerificationSummaryDto,
  ListCustomerVerificationsQueryDto,
  OverrideVerificationStatusDto,
} from './customer-verifications.dto';
import { WebhookReceiptDto } from '../http/webhook-receipt.dto';
import { OperationId } from '../http/operation-id';

function toSummaryDto(verification: VerificationSummaryView): CustomerVerificationSummaryDto {
  return verificationSummaryResponse(verification);
}

function toDto(verification: VerificationView): CustomerVerificationDto {
  return verificationResponse(verification);
}

@ApiTags('Customer verifications')
@Controller()
export class CustomerVerificationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('listCustomerVerifications')
  @Get('customer_verifications')
  @RequireScope('customer_verifications:read')
  @ApiOperation({
    summary: 'List the workspace’s customer verifications, newest first, filtered by customer, status, type and creation time.',
  })
  @ApiOkResponse({ type: CustomerVerificationListDto })
  async list(
    @CurrentActor() actor: Actor,
    @Query() query: ListCustomerVerificationsQueryDto,
  ): Promise<CustomerVerificationListDto> {
    const page = await this.queries.execute(
      new ListVerificationsQuery(actor, query.pageLimit, query.cursor, {
        customerId: query.customer_id,
        status: query.status as VerificationStatus | undefined,
        verificationType: query.verification_type as VerificationType | undefined,
        occurredAfter: query.occurred_after,
        occurredBefore: query.occurred_before,
      }),
    );
    return { data: page.data.map(toSummaryDto), pagination: page.pagination };
  }

  @OperationId('getCustomerVerification')
  @Get('customer_verifications/:id')
  @RequireScope('customer_verifications:read')
  @ApiOperation({ summary: 'Get a customer verification with its provider, reference, timestamps and raw provider result.' })
  @ApiOkResponse({ type: CustomerVerificationDto })
  @ApiErrors('VERIFICATION_NOT_FOUND')
  async get(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<CustomerVerificationDto> {
    return toDto(await this.queries.execute(new GetVerificationQuery(actor, id)));
  }

  @OperationId('updateCustomerVerification')
  @Patch('customer_verifications/:id')
  @RequireScope('customer_verifications:write')
  @ApiOperation({
    summary: 'Admin override of a verification’s status: a permitted transition only (audited); the same status changes nothing.',
  })
  @ApiOkResponse({ type: CustomerVerificationDto })
  @ApiErrors('VERIFICATION_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
  async override(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: OverrideVerificationStatusDto,
  ): Promise<CustomerVerificationDto> {
    return toDto(await this.commands.execute(new OverrideVerificationStatusCommand(actor, id, body.status)));
  }

  @OperationId('receiveVerificationWebhook')
  @Post('webhooks/verifications/:provider')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Verification provider webhooks, HMAC-signed (`Billing-Signature: t=<unix>,v1=<hex>` over `<t>.<raw body>`, 5-minute window); ' +
      'the provider’s check reference resolves the verification.',
  })
  @ApiOkResponse({ type: WebhookReceiptDto })
  @ApiErrors('INVALID_SIGNATURE', 'UNKNOWN_PROVIDER', 'UNSUPPORTED_EVENT', 'VERIFICATION_NOT_FOUND')
  async webhook(
    @Param('provider') provider: string,
    @Req() request: FastifyRequest & { rawBody?: Buffer },
    @Headers(WEBHOOK_SIGNATURE_HEADER) signature: string | undefined,
  ): Promise<WebhookReceiptDto> {
    const { duplicate } = await this.commands.execute(
      new ProcessVerificationWebhookCommand(provider, request.rawBody?.toString('utf8') ?? '', signature),
    );
    return { received: true, duplicate };
  }

  @OperationId('createTestCustomerVerification')
  @Post('test_helpers/customer_verifications')
  @HttpCode(201)
  @RequireScope('customer_verifications:write')
  @ApiOperation({ summary: 'Sandbox only: the sandbox provider opens a verification of the chosen type in the chosen status.' })
  @ApiCreatedResponse({ type: CustomerVerificationDto })
  @ApiErrors('SANDBOX_ONLY', 'CUSTOMER_NOT_FOUND')
  async createInSandbox(
    @CurrentActor() actor: Actor,
    @Body() body: CreateSandboxVerificationDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CustomerVerificationDto> {
    const verification = await this.commands.execute(
      new CreateSandboxVerificationCommand(actor, {
        customerId: body.customer_id,
        verificationType: body.verification_type,
        status: body.status,
        expiresAt: body.expires_at,
      }),
    );
    void reply.header('Location', `/v1/customer_verifications/${verification.id}`);
    return toDto(verification);
  }
}
