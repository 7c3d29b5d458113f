import { Body, Controller, Headers, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AttachPaymentMethodCommand,
  CreateTopUpCommand,
  PaymentMethodView,
  ProcessPaymentWebhookCommand,
  SettleSandboxTopUpCommand,
  SIGNATURE_HEADER,
  TopUpView,
  topUpResponse,
} from '@app/billing-wallet';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { Public, RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { WebhookReceiptDto } from '../http/webhook-receipt.dto';
import { AttachPaymentMethodDto, CreateTopUpDto, PaymentMethodDto, TopUpDto } from './top-ups.dto';
import { OperationId } from '../http/operation-id';

function toTopUpDto(topUp: TopUpView): TopUpDto {
  return topUpResponse(topUp);
}

function toPaymentMethodDto(method: PaymentMethodView): PaymentMethodDto {
  return {
    id: method.id,
    object: 'payment_method',
    customer_id: method.customerId,
    provider: method.provider,
    brand: method.brand,
    last4: method.last4,
    created_at: method.createdAt.toISOString(),
  };
}

@ApiTags('Top-ups and payments')
@Controller()
export class TopUpsController {
  constructor(private readonly commands: CommandBus) {}

  @OperationId('createTopUp')
  @Post('wallets/:id/top_ups')
  @HttpCode(201)
  @RequireScope('wallets:write')
  @ApiOperation({
    summary:
      'Admin top-up: hosted_checkout returns checkout_url; off_session charges a saved method now. Credited only on provider success.',
  })
  @ApiCreatedResponse({ type: TopUpDto })
  @ApiErrors(
    'WALLET_NOT_FOUND',
    'PAYMENT_METHOD_NOT_FOUND',
    'LIMIT_EXCEEDED',
    'PAYMENT_FAILED',
    'PAYMENT_PROVIDER_NOT_CONFIGURED',
  )
  async create(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: CreateTopUpDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const topUp = await this.commands.execute(
      new CreateTopUpCommand(actor, id, { mode: body.mode, paymentMethodId: body.payment_method_id, amount: body.amount }),
    );
    void reply.header('Location', `/v1/wallets/${id}/top_ups/${topUp.id}`);
    return toTopUpDto(topUp);
  }

  @OperationId('attachPaymentMethod')
  @Post('customers/:id/payment_methods')
  @HttpCode(201)
  @RequireScope('customers:write')
  @ApiOperation({ summary: 'Save a payment method for a customer from a provider token.' })
  @ApiCreatedResponse({ type: PaymentMethodDto })
  @ApiErrors('CUSTOMER_NOT_FOUND', 'PAYMENT_PROVIDER_NOT_CONFIGURED')
  async attach(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: AttachPaymentMethodDto) {
    return toPaymentMethodDto(await this.commands.execute(new AttachPaymentMethodCommand(actor, id, body.token)));
  }

  @OperationId('receivePaymentWebhook')
  @Post('webhooks/payments/:provider')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Payment provider webhooks, HMAC-signed (`Billing-Signature: t=<unix>,v1=<hex>` over `<t>.<raw body>`, 5-minute window).',
  })
  @ApiOkResponse({ type: WebhookReceiptDto })
  @ApiErrors('INVALID_SIGNATURE', 'UNKNOWN_PROVIDER', 'UNSUPPORTED_EVENT')
  async webhook(
    @Param('provider') provider: string,
    @Req() request: FastifyRequest & { rawBody?: Buffer },
    @Headers(SIGNATURE_HEADER) signature: string | undefined,
  ): Promise<WebhookReceiptDto> {
    const { duplicate } = await this.commands.execute(
      new ProcessPaymentWebhookCommand(provider, request.rawBody?.toString('utf8') ?? '', signature),
    );
    return { received: true, duplicate };
  }

  @OperationId('succeedTestTopUp')
  @Post('test_helpers/top_ups/:id/succeed')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Sandbox only: the provider reports the pending top-up paid (through its signed webhook).' })
  @ApiOkResponse({ type: TopUpDto })
  @ApiErrors('TOP_UP_NOT_FOUND', 'SANDBOX_ONLY', 'INVALID_STATUS_TRANSITION')
  async succeed(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return toTopUpDto(await this.commands.execute(new SettleSandboxTopUpCommand(actor, id, 'succeed')));
  }

  @OperationId('failTestTopUp')
  @Post('test_helpers/top_ups/:id/fail')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Sandbox only: the provider reports the pending top-up failed.' })
  @ApiOkResponse({ type: TopUpDto })
  @ApiErrors('TOP_UP_NOT_FOUND', 'SANDBOX_ONLY', 'INVALID_STATUS_TRANSITION')
  async fail(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return toTopUpDto(await this.commands.execute(new SettleSandboxTopUpCommand(actor, id, 'fail')));
  }
}
