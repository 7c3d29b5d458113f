import { Money } from '@app/shared-kernel';
import { WalletKey } from '../../domain/wallet.repository';
import { TopUpView } from './top-up.view';

export interface StoredTopUp {
  key: WalletKey;
  view: TopUpView;
}

/**
 * Top-ups, written and settled inside the caller's transaction. A port (also the DI token); the
 * module binds the adapter (infrastructure/typeorm-top-up.store.ts).
 */
/** A top-up as its creation writes it. */
export interface NewTopUp {
  id: string;
  mode: TopUpView['mode'];
  automatic: boolean;
  amount: Money;
  paymentMethodId: string | null;
  provider: string;
  providerReference: string | null;
  checkoutUrl: string | null;
  now: Date;
}

export abstract class TopUpStore {
  /** Returns undefined when an automatic top-up is already pending for the wallet. */
  abstract insert(key: WalletKey, topUp: NewTopUp): Promise<StoredTopUp | undefined>;

  /**
   * Any tenant's top-up by id, row-locked (webhooks carry no tenant); undefined when there is none
   * (or none of `tenant`'s).
   */
  abstract lock(id: string, tenant?: { organizationId: string; workspaceId: string }): Promise<StoredTopUp | undefined>;

  abstract settle(
    key: WalletKey,
    id: string,
    outcome:
      | { status: 'succeeded'; transactionId: string; providerReference: string }
      | { status: 'failed'; failureCode: string; failureMessage: string; providerReference: string | null },
    now: Date,
  ): Promise<StoredTopUp>;
}
