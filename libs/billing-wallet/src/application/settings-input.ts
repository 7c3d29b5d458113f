import { Money } from '@app/shared-kernel';
import { AutoTopup, WalletLimits } from '../domain/wallet';
import { WalletSettingsInput } from './wallet.commands';

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
