import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { MoneyOperationResult } from '../wallet.view';

export interface MoneyOperationInput {
  amount: unknown;
  source?: string;
  currency?: string;
  reason?: string | null;
  reference?: string | null;
  expiresAt?: Date | null;
}

export type MoneyOperationKind = 'credit' | 'debit' | 'adjust';

export class ApplyMoneyOperationCommand extends Command<
  MoneyOperationResult | { held: true; approvalId: string; approvalStatus: string }
> {
  constructor(
    readonly actor: Actor,
    readonly kind: MoneyOperationKind,
    readonly walletId: string,
    readonly input: MoneyOperationInput,
  ) {
    super();
  }
}
