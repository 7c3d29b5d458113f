import { Injectable } from '@nestjs/common';
import { ApprovalExecutor, ExecutesApprovalCheckpoint } from '@app/identity';
import { Actor } from '@app/shared-kernel';
import { transactionResponse } from '../transaction-response';
import { ApplyMoneyOperationHandler, WALLET_ADJUST_CHECKPOINT } from './apply-money-operation.handler';

/** Applies a held wallet adjustment once a second human approved it. */
@Injectable()
@ExecutesApprovalCheckpoint(WALLET_ADJUST_CHECKPOINT)
export class AdjustApprovalExecutor implements ApprovalExecutor {
  constructor(private readonly operations: ApplyMoneyOperationHandler) {}

  async execute(payload: Record<string, unknown>, { requester }: { requester: Actor; approver: Actor }): Promise<unknown> {
    const result = await this.operations.apply(requester, 'adjust', String(payload.wallet_id), {
      amount: payload.amount,
      source: (payload.source as string | null) ?? undefined,
      currency: (payload.currency as string | null) ?? undefined,
      reason: payload.reason as string | null,
      reference: payload.reference as string | null,
    });
    return transactionResponse(result.transaction);
  }
}
