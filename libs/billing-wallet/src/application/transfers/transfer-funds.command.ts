import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { LedgerEntry } from '../../domain/wallet';

export interface TransferResult {
  transferId: string;
  sourceWalletId: string;
  targetWalletId: string;
  amount: { value: string; currency: string };
  targetAmount: { value: string; currency: string };
  exchangeRate: { rate: string; from_currency: string; to_currency: string; as_of: string } | null;
  debit: { walletId: string; currency: string; entry: LedgerEntry };
  credit: { walletId: string; currency: string; entry: LedgerEntry };
}

export class TransferFundsCommand extends Command<TransferResult> {
  constructor(
    readonly actor: Actor,
    readonly sourceWalletId: string,
    readonly input: { amount: unknown; currency: unknown; targetWalletId: string; reason?: string | null },
  ) {
    super();
  }
}
