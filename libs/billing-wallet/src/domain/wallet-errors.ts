import { DomainError, Money } from '@app/shared-kernel';

export function insufficientFunds(requested: Money, spendable: Money): DomainError {
  return new DomainError('rule_violation', 'INSUFFICIENT_FUNDS', 'The wallet cannot cover this amount, credit limit included.', {
    param: 'amount',
    details: { requested: requested.toString(), spendable: spendable.toString(), currency: requested.currency },
  });
}

export function limitExceeded(limit: 'max_single_credit' | 'max_balance', value: Money): DomainError {
  return new DomainError(
    'rule_violation',
    'LIMIT_EXCEEDED',
    `This would exceed the wallet's ${limit} of ${value.toString()} ${value.currency}.`,
    {
      param: 'amount',
      details: { limit, value: value.toString() },
    },
  );
}

export function currencyMismatch(expected: string, given: string): DomainError {
  return new DomainError('invalid_request', 'CURRENCY_MISMATCH', `This wallet holds ${expected}, not ${given}.`, {
    param: 'currency',
    details: { wallet_currency: expected, currency: given },
  });
}

export function referenceAlreadyUsed(transactionId: string): DomainError {
  return new DomainError(
    'conflict',
    'REFERENCE_ALREADY_USED',
    'This (source, reference) already names another operation on this wallet; only the same operation, amount and currency replays.',
    { param: 'reference', details: { transaction_id: transactionId } },
  );
}
