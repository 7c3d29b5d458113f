import { Hold } from '../domain/hold';
import { Wallet } from '../domain/wallet';
import { TopUpView } from './top-ups/top-up.view';
import { TransactionView } from './wallet.view';

/** The contract's wallet transaction object (api-contract.md "Transaction", the OpenAPI WalletTransactionDto). */
// A type, not an interface: events and approval results take it as a Record<string, unknown>.
export type TransactionJson = {
  id: string;
  object: 'wallet_transaction';
  wallet_id: string;
  type: string;
  source: string | null;
  amount: string;
  currency: string;
  cash_amount: string;
  promotional_amount: string;
  ending_cash_balance: string;
  ending_promotional_balance: string;
  reason: string | null;
  reference: string | null;
  transfer_id: string | null;
  hold_id: string | null;
  expires_at: string | null;
  exchange_rate: Record<string, string> | null;
  funding: {
    promotional_lots: Array<{ lot_id: string; amount: string; expires_at: string | null }>;
    cash: string;
  } | null;
  created_by: { type: string; id: string | null };
  created_at: string;
};

/**
 * The one builder of a ledger line's JSON: the HTTP edge, events and approval results answer it,
 * and the ledger insert (wallet-rows.ts) stores it, re-encoding only what its columns keep apart.
 */
export function transactionResponse({ walletId, currency, entry }: TransactionView): TransactionJson {
  return {
    id: entry.id,
    object: 'wallet_transaction',
    wallet_id: walletId,
    type: entry.type,
    source: entry.source,
    amount: entry.amount.toString(),
    currency,
    cash_amount: entry.cashAmount.toString(),
    promotional_amount: entry.promotionalAmount.toString(),
    ending_cash_balance: entry.endingCash.toString(),
    ending_promotional_balance: entry.endingPromotional.toString(),
    reason: entry.reason,
    reference: entry.reference,
    transfer_id: entry.transferId,
    hold_id: entry.holdId,
    expires_at: entry.expiresAt?.toISOString() ?? null,
    exchange_rate: entry.exchangeRate,
    funding: entry.funding && {
      promotional_lots: entry.funding.lots.map((lot) => ({
        lot_id: lot.lotId,
        amount: lot.amount.toString(),
        expires_at: lot.expiresAt?.toISOString() ?? null,
      })),
      cash: entry.funding.cash.toString(),
    },
    created_by: entry.createdBy,
    created_at: entry.createdAt.toISOString(),
  };
}

/** The contract's wallet object: the spec's fields plus cash, promotional, held and available balances. */
export function walletResponse(wallet: Wallet): Record<string, unknown> {
  const s = wallet.snapshot;
  return {
    id: s.id,
    object: 'wallet',
    customer_id: s.customerId,
    currency: s.currency,
    is_primary: s.isPrimary,
    cash_balance: s.cash.toString(),
    promotional_balance: s.promotional.toString(),
    held_balance: s.held.toString(),
    available_balance: wallet.availableBalance.toString(),
    credit_limit: s.limits.creditLimit.toString(),
    max_balance: s.limits.maxBalance?.toString() ?? null,
    max_single_credit: s.limits.maxSingleCredit?.toString() ?? null,
    low_balance_threshold: s.limits.lowBalanceThreshold?.toString() ?? null,
    auto_topup_enabled: s.autoTopup.enabled,
    auto_topup_amount: s.autoTopup.amount?.toString() ?? null,
    auto_topup_payment_method_id: s.autoTopup.paymentMethodId,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/** The contract's hold object: spec 2.10 fields (internal-only ones null) plus its lifecycle. */
export function holdResponse(hold: Hold): Record<string, unknown> {
  const s = hold.snapshot;
  return {
    id: s.id,
    object: 'wallet_hold',
    wallet_id: s.walletId,
    amount: s.amount.toString(),
    currency: s.amount.currency,
    status: s.status,
    expires_at: s.expiresAt?.toISOString() ?? null,
    reason: s.reason,
    reference_id: s.referenceId,
    reference_type: s.referenceType,
    reverse_charge: s.reverseCharge,
    tax_rate: s.taxRate?.toString() ?? null,
    tax_rule_id: s.taxRuleId,
    exchange_rate_base_leg_id: null,
    exchange_rate_id: null,
    fx_policy_applied: null,
    metric_key: null,
    subscription_id: null,
    applied_promotions: null,
    release_reason: s.releaseReason,
    captured_amount: s.capturedAmount?.toString() ?? null,
    captured_net_amount: s.capturedNetAmount?.toString() ?? null,
    captured_tax_amount: s.capturedTaxAmount?.toString() ?? null,
    capture_transaction_id: s.captureTransactionId,
    captured_at: s.capturedAt?.toISOString() ?? null,
    released_at: s.releasedAt?.toISOString() ?? null,
    created_at: s.createdAt.toISOString(),
  };
}

/** The contract's top-up object: what the top-up routes answer and what its events carry. */
export function topUpResponse(topUp: TopUpView) {
  return {
    id: topUp.id,
    object: 'wallet_top_up' as const,
    wallet_id: topUp.walletId,
    mode: topUp.mode,
    automatic: topUp.automatic,
    amount: topUp.amount,
    currency: topUp.currency,
    status: topUp.status,
    payment_method_id: topUp.paymentMethodId,
    checkout_url: topUp.checkoutUrl,
    failure_code: topUp.failureCode,
    failure_message: topUp.failureMessage,
    transaction_id: topUp.transactionId,
    created_at: topUp.createdAt.toISOString(),
    completed_at: topUp.completedAt?.toISOString() ?? null,
  };
}
