import { Actor, AuditEntry, invalidParameter, Money } from '@app/shared-kernel';
import { EntryType, LedgerEntry, MoneyMovement, replayOf, SOURCES, Source, Wallet } from '../../domain/wallet';
import type { MoneyOperationInput, MoneyOperationKind } from './apply-money-operation.command';
import { createdBy } from '../wallet-keys';
import { MoneyOperationResult } from '../wallet.view';

/**
 * What a credit, debit or adjust decides the same way wherever it runs (POST /v1/wallets/{id}/<verb>,
 * an approved adjustment, each item of a batch of debits): the request checked against its locked
 * wallet, the (source, reference) replay, the movement handed to the aggregate and its audit row.
 */

const ENTRY_TYPES: Record<MoneyOperationKind, EntryType> = { credit: 'credit', debit: 'debit', adjust: 'adjustment' };

export function parseSource(value: string | undefined, kind: MoneyOperationKind): Source {
  if (value === undefined) return kind === 'adjust' ? 'MANUAL' : kind === 'credit' ? 'PAYMENT' : 'CHARGE';
  if (!SOURCES.includes(value as Source))
    throw invalidParameter('source', 'INVALID_VALUE', `source must be one of ${SOURCES.join(', ')}.`);
  return value as Source;
}

/** The request checked against its wallet: the currency echo-guard, then the amount at the currency's scale. */
export function checkedAgainst(wallet: Wallet, input: MoneyOperationInput): { amount: Money; reference: string | null } {
  wallet.assertCurrency(input.currency);
  return { amount: Money.parse(input.amount, wallet.snapshot.currency, 'amount'), reference: input.reference ?? null };
}

/**
 * A repeated (source, reference) on a wallet: the original line when the request asks for the same
 * thing (409 REFERENCE_ALREADY_USED otherwise), answered as the original operation's result.
 */
export function replayed(
  kind: MoneyOperationKind,
  walletId: string,
  wallet: Wallet,
  original: LedgerEntry,
  amount: Money,
): MoneyOperationResult {
  return {
    transaction: {
      walletId,
      currency: wallet.snapshot.currency,
      entry: replayOf(original, ENTRY_TYPES[kind], kind === 'debit' ? amount.negate() : amount),
    },
    replayed: true,
  };
}

export function movementOf(
  actor: Actor,
  input: MoneyOperationInput,
  decided: { source: Source; amount: Money; reference: string | null },
  now: Date,
): MoneyMovement {
  return {
    amount: decided.amount,
    source: decided.source,
    reason: input.reason ?? null,
    reference: decided.reference,
    createdBy: createdBy(actor),
    now,
  };
}

/** The audit row of an applied money line. */
export function moneyAudit(kind: MoneyOperationKind, wallet: Wallet, entry: LedgerEntry): AuditEntry {
  return {
    action: `wallet.${kind === 'adjust' ? 'adjusted' : kind === 'credit' ? 'credited' : 'debited'}`,
    resourceType: 'wallet',
    resourceId: wallet.id,
    data: { transaction_id: entry.id, amount: entry.amount.toString(), currency: wallet.snapshot.currency },
  };
}

/** Where a line's (source, reference) replay is looked up: the wallet, the source and the reference. */
export function referenceKey(walletId: string, source: Source, reference: string): string {
  return `${walletId.toLowerCase()}\u0000${source}\u0000${reference}`;
}
