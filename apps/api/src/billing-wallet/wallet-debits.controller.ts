import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BatchDebitOutcome, BatchRejectedError, DebitBatchCommand, transactionResponse, WalletErrors } from '@app/billing-wallet';
import type { Actor } from '@app/shared-kernel';
import type { FastifyRequest } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { toErrorResponse } from '../http/error-response';
import { OperationId } from '../http/operation-id';
import { WalletDebitBatchDto, WalletDebitBatchResultDto } from './wallets.dto';

@ApiTags('Wallets')
@Controller('wallet_debits')
export class WalletDebitsController {
  constructor(private readonly commands: CommandBus) {}

  @OperationId('createWalletDebits')
  @Post()
  @HttpCode(200)
  @RequireScope('wallets:write')
  @ApiOperation({
    summary: 'Batch debits (usage charges): each item as POST /v1/wallets/{id}/debit answers it, in request order.',
    description:
      'One Idempotency-Key covers the whole batch. Each item follows every rule of the single debit (limits, promotional ' +
      'lots first, the (source, reference) replay, the audit row) and its outcome is what that route would answer: ' +
      '`status` 200 with the `transaction`, or the 4xx with its `error`. Items on one wallet apply in request order. ' +
      'Without `atomic`, a refused item changes nothing and the others apply; with `atomic: true` one refused item ' +
      'refuses the batch: 422 BATCH_REJECTED, `details.items` naming each refused item with its error, nothing applied.',
  })
  @ApiOkResponse({ type: WalletDebitBatchResultDto })
  @ApiErrors('BATCH_REJECTED')
  async create(@CurrentActor() actor: Actor, @Body() body: WalletDebitBatchDto, @Req() request: FastifyRequest) {
    const requestId = String(request.id);
    const items = body.debits.map((item) => ({
      walletId: item.wallet_id,
      amount: item.amount,
      source: item.source,
      currency: item.currency,
      reason: item.reason,
      reference: item.reference,
    }));
    let outcomes: BatchDebitOutcome[];
    try {
      outcomes = await this.commands.execute(new DebitBatchCommand(actor, items, body.atomic === true));
    } catch (error) {
      if (!(error instanceof BatchRejectedError)) throw error;
      throw WalletErrors.BATCH_REJECTED.create(error.message, {
        param: error.param,
        details: { items: error.refusals.map((refusal) => outcomeResponse(refusal, requestId)) },
      });
    }
    return { object: 'list', data: outcomes.map((outcome) => outcomeResponse(outcome, requestId)) };
  }
}

/** `{index, status, transaction}` or `{index, status, error}`: the item's answer as the single debit route gives it. */
function outcomeResponse(outcome: BatchDebitOutcome, requestId: string): Record<string, unknown> {
  if ('result' in outcome) {
    return { index: outcome.index, status: 200, transaction: transactionResponse(outcome.result.transaction) };
  }
  const { status, body } = toErrorResponse(outcome.error, requestId);
  return { index: outcome.index, status, error: body.error };
}
