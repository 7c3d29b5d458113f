import { DomainError } from '@app/shared-kernel';
import { AutoTopup } from '../../domain/wallet';
import { PaymentMethodOwner, PaymentMethodStore } from './payment-method.store';
import { WalletErrors } from '../../domain/wallet-errors';

export function paymentMethodNotFound(param: string): DomainError {
  return WalletErrors.PAYMENT_METHOD_NOT_FOUND.create("No such payment method for this wallet's customer.", {
    param,
  });
}

/**
 * A payment method named by a request or a stored setting is resolved inside the wallet's
 * organization, workspace and customer, when it is written and again when it is used: another
 * tenant's, another customer's and a made-up id are all the same 404.
 */
export async function assertPaymentMethodOf(
  store: PaymentMethodStore,
  owner: PaymentMethodOwner,
  id: string,
  param: string,
): Promise<void> {
  if (!(await store.belongsTo(owner, id))) throw paymentMethodNotFound(param);
}

/** Settings about to be stored: every id they name must resolve inside the wallet's tenant and customer. */
export async function assertSettingsReferences(
  store: PaymentMethodStore,
  owner: PaymentMethodOwner,
  settings: { autoTopup: Partial<AutoTopup> },
): Promise<void> {
  const { paymentMethodId } = settings.autoTopup;
  if (paymentMethodId) await assertPaymentMethodOf(store, owner, paymentMethodId, 'auto_topup_payment_method_id');
}
