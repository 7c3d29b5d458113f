import { Money } from '@app/shared-kernel';
import { AutoTopup, WalletLimits } from '../../domain/wallet';

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

/** API settings (strings, null clears where clearing makes sense) → the aggregate's terms. */
export function toWalletSettings(
  input: WalletSettingsInput,
  currency: string,
): Partial<WalletLimits> & { autoTopup: Partial<AutoTopup> } {
  const amount = (value: string | null | undefined, param: string): Money | null | undefined =>
    value === undefined ? undefined : value === null ? null : Money.parse(value, currency, param);
  const creditLimit = amount(input.creditLimit, 'credit_limit');
  return {
    creditLimit: creditLimit === null ? Money.zero(currency) : creditLimit,
    maxBalance: amount(input.maxBalance, 'max_balance'),
    maxSingleCredit: amount(input.maxSingleCredit, 'max_single_credit'),
    lowBalanceThreshold: amount(input.lowBalanceThreshold, 'low_balance_threshold'),
    autoTopup: {
      enabled: input.autoTopupEnabled ?? undefined,
      amount: amount(input.autoTopupAmount, 'auto_topup_amount'),
      paymentMethodId: input.autoTopupPaymentMethodId === undefined ? undefined : input.autoTopupPaymentMethodId,
    },
  };
}
