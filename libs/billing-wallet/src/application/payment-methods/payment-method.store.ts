import { PaymentMethodView } from './attach-payment-method.command';

/** Whose payment method it is: the tenant and, inside it, the customer it was saved for. */
export interface PaymentMethodOwner {
  organizationId: string;
  workspaceId: string;
  customerId: string;
}

/**
 * Saved payment methods, written and resolved inside the caller's transaction, always within their
 * owner. A port (also the DI token); the module binds the adapter (infrastructure/typeorm-payment-method.store.ts).
 */
export abstract class PaymentMethodStore {
  abstract insert(owner: Omit<PaymentMethodOwner, 'customerId'>, method: PaymentMethodView): Promise<void>;

  /** Whether `id` names a payment method of this customer in this organization and workspace. */
  abstract belongsTo(owner: PaymentMethodOwner, id: string): Promise<boolean>;
}
