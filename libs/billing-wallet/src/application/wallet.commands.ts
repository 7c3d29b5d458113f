import { Command, Query } from '@nestjs/cqrs';
import { Actor, DomainError, Page } from '@app/shared-kernel';
import { Wallet } from '../domain/wallet';
import { MoneyOperationResult, TransactionView } from './wallet.view';

/** Limits and settings as the API sends them: decimal strings in major units; null clears. */
export interface WalletSettingsInput {
  creditLimit?: string | null;
  maxBalance?: string | null;
  maxSingleCredit?: string | null;
  lowBalanceThreshold?: string | null;
  autoTopupEnabled?: boolean | null;
  autoTopupAmount?: string | null;
  autoTopupPaymentMethodId?: string | null;
}

export class CreateWalletCommand extends Command<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly input: { customerId: string; currency: unknown; settings: WalletSettingsInput },
  ) {
    super();
  }
}

export class UpdateWalletSettingsCommand extends Command<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly currency: string | undefined,
    readonly settings: WalletSettingsInput,
  ) {
    super();
  }
}

export class MakePrimaryWalletCommand extends Command<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
  ) {
    super();
  }
}

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

export class GetWalletQuery extends Query<Wallet> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
  ) {
    super();
  }
}

export interface WalletFilters {
  customerId?: string;
  currencies?: string[];
  isPrimary?: boolean;
  autoTopupEnabled?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
}

export class ListWalletsQuery extends Query<Page<Wallet>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: WalletFilters,
  ) {
    super();
  }
}

export class ListWalletTransactionsQuery extends Query<Page<TransactionView>> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

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
