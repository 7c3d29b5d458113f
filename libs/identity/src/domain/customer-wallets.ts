import type { Actor } from '@app/shared-kernel';

/**
 * What identity needs of a customer's wallets, declared here and implemented by the
 * billing-wallet context (bound in `IdentityModule.register`), so that identity imports nothing
 * of wallets. The contract: creating a customer creates its primary wallet in the same
 * transaction, and the customer names it.
 */
export abstract class CustomerWallets {
  /**
   * Opens the new customer's primary wallet in the customer's currency, inside the caller's
   * transaction, and returns its id. A throw rolls the customer back with it.
   */
  abstract openPrimary(actor: Actor, customer: { id: string; currency: string; createdAt: Date }): Promise<string>;

  /** The current primary wallet of each given customer of the actor's workspace, by customer id. */
  abstract primaryWalletIds(actor: Actor, customerIds: readonly string[]): Promise<Map<string, string>>;
}
