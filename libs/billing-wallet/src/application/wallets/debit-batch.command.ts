import { Command } from '@nestjs/cqrs';
import { Actor, DomainError } from '@app/shared-kernel';
import { MoneyOperationResult } from '../wallet.view';
import { MoneyOperationInput } from './apply-money-operation.command';

/** The most debits one batch may carry (POST /v1/wallet_debits). */
export const MAX_BATCH_DEBITS = 1000;

export interface BatchDebitInput extends MoneyOperationInput {
  walletId: string;
}

/** One item's answer: what POST /v1/wallets/{id}/debit would have answered for it. */
export type BatchDebitOutcome = { index: number } & ({ result: MoneyOperationResult } | { error: DomainError });

export class DebitBatchCommand extends Command<BatchDebitOutcome[]> {
  constructor(
    readonly actor: Actor,
    readonly items: readonly BatchDebitInput[],
    readonly atomic: boolean,
  ) {
    super();
  }
}
