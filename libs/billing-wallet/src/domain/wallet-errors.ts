import { DomainError, Money, defineErrors, SharedErrors } from '@app/shared-kernel';

/**
 * The billing-wallet context's refusals, each declared once (see
 * libs/shared-kernel/src/error-definitions.ts): throw sites create their DomainError from these,
 * and a definition with an `example` is a code the API documents
 * (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const WalletErrors = defineErrors({
  SAME_WALLET_TRANSFER: { kind: 'invalid_request', example: 'A wallet cannot transfer to itself.', param: 'target_wallet_id' },
  WALLET_NOT_FOUND: { kind: 'not_found', example: 'No such wallet.' },
  HOLD_NOT_FOUND: { kind: 'not_found', example: 'No such hold on this wallet.' },
  TOP_UP_NOT_FOUND: { kind: 'not_found', example: 'No such top-up.' },
  PAYMENT_METHOD_NOT_FOUND: {
    kind: 'not_found',
    example: 'No such payment method for this customer.',
    param: 'payment_method_id',
  },
  HOLD_NOT_PENDING: { kind: 'conflict', example: 'This hold is no longer pending.' },
  REFERENCE_ALREADY_USED: {
    kind: 'conflict',
    example: 'This source and reference already name another operation on this wallet.',
    param: 'reference',
    details: { transaction_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d0e' },
  },
  INSUFFICIENT_FUNDS: {
    kind: 'rule_violation',
    example: 'The wallet cannot cover this amount, credit limit included.',
    param: 'amount',
    details: { requested: '120.00', spendable: '95.00', currency: 'EUR' },
  },
  BATCH_REJECTED: {
    kind: 'rule_violation',
    example: '1 item(s) of this atomic batch were refused; none was applied.',
    param: 'debits',
    details: {
      items: [
        {
          index: 1,
          status: 422,
          error: {
            type: 'business_rule_error',
            code: 'INSUFFICIENT_FUNDS',
            message: 'The wallet cannot cover this amount, credit limit included.',
            param: 'amount',
            status: 422,
            request_id: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69',
            details: { requested: '120.00', spendable: '95.00', currency: 'EUR' },
          },
        },
      ],
    },
  },
  LIMIT_EXCEEDED: {
    kind: 'rule_violation',
    example: "This would exceed the wallet's max_single_credit of 2500.00 EUR.",
    param: 'amount',
    details: { limit: 'max_single_credit', value: '2500.00' },
  },
  CAPTURE_EXCEEDS_HOLD: { kind: 'rule_violation', example: 'The capture exceeds the hold’s amount.', param: 'amount' },
  CREDIT_LIMIT_BELOW_BALANCE: {
    kind: 'rule_violation',
    example: 'The wallet is already further below zero than this credit limit allows.',
    param: 'credit_limit',
  },
  AUTO_TOPUP_INCOMPLETE: {
    kind: 'rule_violation',
    example: 'Automatic top-up needs low_balance_threshold, auto_topup_amount and a payment method.',
  },
  FX_RATE_NOT_CONFIGURED: { kind: 'rule_violation', example: 'No FX rate from EUR to USD is configured.' },
  PAYMENT_FAILED: { kind: 'payment_declined', example: 'Your card was declined.', details: { failure_code: 'card_declined' } },
  PAYMENT_PROVIDER_NOT_CONFIGURED: { kind: 'unavailable', example: 'No payment provider is configured for live payments.' },
});

export function insufficientFunds(requested: Money, spendable: Money): DomainError {
  return WalletErrors.INSUFFICIENT_FUNDS.create('The wallet cannot cover this amount, credit limit included.', {
    param: 'amount',
    details: { requested: requested.toString(), spendable: spendable.toString(), currency: requested.currency },
  });
}

export function limitExceeded(limit: 'max_single_credit' | 'max_balance', value: Money): DomainError {
  return WalletErrors.LIMIT_EXCEEDED.create(`This would exceed the wallet's ${limit} of ${value.toString()} ${value.currency}.`, {
    param: 'amount',
    details: { limit, value: value.toString() },
  });
}

export function currencyMismatch(expected: string, given: string): DomainError {
  return SharedErrors.CURRENCY_MISMATCH.create(`This wallet holds ${expected}, not ${given}.`, {
    param: 'currency',
    details: { wallet_currency: expected, currency: given },
  });
}

export function referenceAlreadyUsed(transactionId: string): DomainError {
  return WalletErrors.REFERENCE_ALREADY_USED.create(
    'This (source, reference) already names another operation on this wallet; only the same operation, amount and currency replays.',
    { param: 'reference', details: { transaction_id: transactionId } },
  );
}
