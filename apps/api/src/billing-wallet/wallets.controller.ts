import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ApplyMoneyOperationCommand,
  CaptureHoldCommand,
  CreateHoldCommand,
  GetHoldQuery,
  holdResponse,
  ListPendingHoldsQuery,
  ReleaseHoldCommand,
  TransferFundsCommand,
  CreateWalletCommand,
  GetWalletQuery,
  ListWalletsQuery,
  ListWalletTransactionsQuery,
  MakePrimaryWalletCommand,
  MoneyOperationKind,
  transactionResponse,
  UpdateWalletSettingsCommand,
  walletResponse,
  WalletSettingsInput,
} from '@app/billing-wallet';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { pendingApproval } from '../http/pending-approval.dto';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { ReplayAsConflict } from '../http/idempotency.interceptor';
import { ListQueryDto } from '../http/list-query.dto';
import {
  AdjustDto,
  CaptureHoldDto,
  CreateHoldDto,
  HoldDto,
  HoldListDto,
  TransferDto,
  TransferResponseDto,
  CreateWalletDto,
  CreditDto,
  ListWalletsQueryDto,
  MoneyOperationDto,
  PendingApprovalDto,
  UpdateWalletDto,
  WalletDto,
  WalletListDto,
  WalletTransactionDto,
  WalletTransactionListDto,
} from './wallets.dto';
import { OperationId } from '../http/operation-id';

function settingsOf(body: Partial<UpdateWalletDto>): WalletSettingsInput {
  return {
    creditLimit: body.credit_limit,
    maxBalance: body.max_balance,
    maxSingleCredit: body.max_single_credit,
    lowBalanceThreshold: body.low_balance_threshold,
    autoTopupEnabled: body.auto_topup_enabled,
    autoTopupAmount: body.auto_topup_amount,
    autoTopupPaymentMethodId: body.auto_topup_payment_method_id,
  };
}

@ApiTags('Wallets')
@Controller('wallets')
export class WalletsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('listWallets')
  @Get()
  @RequireScope('wallets:read')
  @ApiOperation({ summary: 'List wallets, newest first; filters AND together.' })
  @ApiOkResponse({ type: WalletListDto })
  async list(@CurrentActor() actor: Actor, @Query() query: ListWalletsQueryDto) {
    const page = await this.queries.execute(
      new ListWalletsQuery(actor, query.pageLimit, query.cursor, {
        customerId: query.customer_id,
        currencies: query.currency,
        isPrimary: query.is_primary,
        autoTopupEnabled: query.auto_topup_enabled,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      }),
    );
    return { data: page.data.map(walletResponse), pagination: page.pagination };
  }

  @OperationId('createWallet')
  @Post()
  @HttpCode(201)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Create a secondary wallet (one per customer and currency).' })
  @ApiCreatedResponse({ type: WalletDto })
  @ApiErrors(
    'CUSTOMER_NOT_FOUND',
    'ALREADY_EXISTS',
    'CREDIT_LIMIT_BELOW_BALANCE',
    'AUTO_TOPUP_INCOMPLETE',
    'PAYMENT_METHOD_NOT_FOUND',
  )
  async create(@CurrentActor() actor: Actor, @Body() body: CreateWalletDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const wallet = await this.commands.execute(
      new CreateWalletCommand(actor, { customerId: body.customer_id, currency: body.currency, settings: settingsOf(body) }),
    );
    void reply.header('Location', `/v1/wallets/${wallet.id}`);
    return walletResponse(wallet);
  }

  @OperationId('getWallet')
  @Get(':id')
  @RequireScope('wallets:read')
  @ApiOperation({ summary: 'Get a wallet: balances, limits and settings.' })
  @ApiOkResponse({ type: WalletDto })
  @ApiErrors('WALLET_NOT_FOUND')
  async get(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return walletResponse(await this.queries.execute(new GetWalletQuery(actor, id)));
  }

  @OperationId('updateWallet')
  @Patch(':id')
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Update limits and settings; `currency` is an echo-guard.' })
  @ApiOkResponse({ type: WalletDto })
  @ApiErrors(
    'WALLET_NOT_FOUND',
    'PAYMENT_METHOD_NOT_FOUND',
    'CURRENCY_MISMATCH',
    'CREDIT_LIMIT_BELOW_BALANCE',
    'AUTO_TOPUP_INCOMPLETE',
  )
  async update(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: UpdateWalletDto) {
    return walletResponse(
      await this.commands.execute(new UpdateWalletSettingsCommand(actor, id, body.currency, settingsOf(body))),
    );
  }

  @OperationId('makeWalletPrimary')
  @Post(':id/make_primary')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Promote to primary, demoting the previous one atomically; a no-op when already primary.' })
  @ApiOkResponse({ type: WalletDto })
  @ApiErrors('WALLET_NOT_FOUND')
  async makePrimary(@CurrentActor() actor: Actor, @Param('id') id: string) {
    return walletResponse(await this.commands.execute(new MakePrimaryWalletCommand(actor, id)));
  }

  @OperationId('creditWallet')
  @Post(':id/credit')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Credit: cash, or a promotional lot (source PROMOTION, optional expires_at).' })
  @ApiOkResponse({ type: WalletTransactionDto })
  @ApiErrors('WALLET_NOT_FOUND', 'CURRENCY_MISMATCH', 'LIMIT_EXCEEDED', 'REFERENCE_ALREADY_USED')
  credit(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: CreditDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.apply(actor, 'credit', id, body, reply, body.expires_at);
  }

  @OperationId('debitWallet')
  @Post(':id/debit')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Debit: promotional lots first (soonest expiry), then cash, then down to −credit_limit.' })
  @ApiOkResponse({ type: WalletTransactionDto })
  @ApiErrors('WALLET_NOT_FOUND', 'CURRENCY_MISMATCH', 'REFERENCE_ALREADY_USED', 'INSUFFICIENT_FUNDS')
  debit(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: MoneyOperationDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.apply(actor, 'debit', id, body, reply);
  }

  @OperationId('adjustWallet')
  @Post(':id/adjust')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Signed cash correction; held for a human approval when the workspace requires it.' })
  @ApiOkResponse({ type: WalletTransactionDto })
  @ApiAcceptedResponse({ type: PendingApprovalDto, description: 'Held for approval; nothing applied. Poll Location.' })
  @ApiErrors(
    'WALLET_NOT_FOUND',
    'CURRENCY_MISMATCH',
    'APPROVAL_REQUIRED_HUMAN',
    'REFERENCE_ALREADY_USED',
    'INSUFFICIENT_FUNDS',
    'LIMIT_EXCEEDED',
  )
  adjust(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: AdjustDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.apply(actor, 'adjust', id, body, reply);
  }

  @OperationId('listWalletTransactions')
  @Get(':id/transactions')
  @RequireScope('wallets:read')
  @ApiOperation({ summary: 'The wallet’s ledger, newest first.' })
  @ApiOkResponse({ type: WalletTransactionListDto })
  @ApiErrors('WALLET_NOT_FOUND')
  async transactions(@CurrentActor() actor: Actor, @Param('id') id: string, @Query() query: ListQueryDto) {
    const page = await this.queries.execute(new ListWalletTransactionsQuery(actor, id, query.pageLimit, query.cursor));
    return { data: page.data.map(transactionResponse), pagination: page.pagination };
  }

  @OperationId('listWalletHolds')
  @Get(':id/holds')
  @RequireScope('wallets:read')
  @ApiOperation({ summary: 'Pending holds of the wallet, newest first.' })
  @ApiOkResponse({ type: HoldListDto })
  @ApiErrors('WALLET_NOT_FOUND')
  async holds(@CurrentActor() actor: Actor, @Param('id') id: string) {
    const holds = await this.queries.execute(new ListPendingHoldsQuery(actor, id));
    return { data: holds.map(holdResponse), pagination: { cursor: null, has_more: false } };
  }

  @OperationId('createWalletHold')
  @Post(':id/holds')
  @HttpCode(201)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Reserve funds until captured or released (automatically at expires_at).' })
  @ApiCreatedResponse({ type: HoldDto })
  @ApiErrors('WALLET_NOT_FOUND', 'CURRENCY_MISMATCH', 'INSUFFICIENT_FUNDS')
  async createHold(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: CreateHoldDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const hold = await this.commands.execute(
      new CreateHoldCommand(actor, id, {
        amount: body.amount,
        currency: body.currency,
        expiresAt: body.expires_at,
        reason: body.reason,
        referenceId: body.reference_id,
        referenceType: body.reference_type,
        reverseCharge: body.reverse_charge,
        taxRate: body.tax_rate,
        taxRuleId: body.tax_rule_id,
      }),
    );
    void reply.header('Location', `/v1/wallets/${id}/holds/${hold.id}`);
    return holdResponse(hold);
  }

  @OperationId('getWalletHold')
  @Get(':id/holds/:hold_id')
  @RequireScope('wallets:read')
  @ApiOperation({ summary: 'Get a hold.' })
  @ApiOkResponse({ type: HoldDto })
  @ApiErrors('WALLET_NOT_FOUND', 'HOLD_NOT_FOUND')
  async hold(@CurrentActor() actor: Actor, @Param('id') id: string, @Param('hold_id') holdId: string) {
    return holdResponse(await this.queries.execute(new GetHoldQuery(actor, id, holdId)));
  }

  @OperationId('captureWalletHold')
  @Post(':id/holds/:hold_id/capture')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Capture all or part of a pending, unexpired hold; the remainder is released; tax is recorded.' })
  @ApiOkResponse({ type: HoldDto })
  @ApiErrors('WALLET_NOT_FOUND', 'HOLD_NOT_FOUND', 'HOLD_NOT_PENDING', 'CAPTURE_EXCEEDS_HOLD', 'INSUFFICIENT_FUNDS')
  async capture(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Param('hold_id') holdId: string,
    @Body() body: CaptureHoldDto,
  ) {
    return holdResponse(await this.commands.execute(new CaptureHoldCommand(actor, id, holdId, body.amount)));
  }

  @OperationId('releaseWalletHold')
  @Post(':id/holds/:hold_id/release')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({ summary: 'Release a pending hold.' })
  @ApiOkResponse({ type: HoldDto })
  @ApiErrors('WALLET_NOT_FOUND', 'HOLD_NOT_FOUND', 'HOLD_NOT_PENDING')
  async release(@CurrentActor() actor: Actor, @Param('id') id: string, @Param('hold_id') holdId: string) {
    return holdResponse(await this.commands.execute(new ReleaseHoldCommand(actor, id, holdId)));
  }

  @OperationId('transferWalletFunds')
  @Post(':id/transfer')
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ReplayAsConflict('transfer_id')
  @ApiOperation({
    summary: 'Transfer atomically to another wallet (promotional first, expiries carried; FX at the organization’s rate).',
  })
  @ApiOkResponse({ type: TransferResponseDto })
  @ApiErrors(
    'WALLET_NOT_FOUND',
    'SAME_WALLET_TRANSFER',
    'CURRENCY_MISMATCH',
    'INSUFFICIENT_FUNDS',
    'LIMIT_EXCEEDED',
    'FX_RATE_NOT_CONFIGURED',
  )
  async transfer(@CurrentActor() actor: Actor, @Param('id') id: string, @Body() body: TransferDto) {
    const result = await this.commands.execute(
      new TransferFundsCommand(actor, id, {
        amount: body.amount.value,
        currency: body.amount.currency,
        targetWalletId: body.target_wallet_id,
        reason: body.reason,
      }),
    );
    return {
      object: 'wallet_transfer',
      transfer_id: result.transferId,
      source_wallet_id: result.sourceWalletId,
      target_wallet_id: result.targetWalletId,
      amount: result.amount,
      target_amount: result.targetAmount,
      exchange_rate: result.exchangeRate,
      debit_transaction: transactionResponse(result.debit),
      credit_transaction: transactionResponse(result.credit),
    };
  }

  private async apply(
    actor: Actor,
    kind: MoneyOperationKind,
    walletId: string,
    body: MoneyOperationDto,
    reply: FastifyReply,
    expiresAt?: Date | null,
  ): Promise<Record<string, unknown> | PendingApprovalDto> {
    const result = await this.commands.execute(
      new ApplyMoneyOperationCommand(actor, kind, walletId, {
        amount: body.amount,
        source: body.source,
        currency: body.currency,
        reason: body.reason,
        reference: body.reference,
        expiresAt,
      }),
    );
    if ('held' in result) {
      return pendingApproval(reply, { id: result.approvalId, status: result.approvalStatus, checkpoint: 'wallet.adjust' });
    }
    if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
    return transactionResponse(result.transaction);
  }
}
