import { CustomerView } from './customer.view';

/** The contract's customer object: what the customer routes answer and what its events carry. */
export function customerResponse(customer: CustomerView) {
  return {
    id: customer.id,
    object: 'customer' as const,
    workspace_id: customer.workspaceId,
    name: customer.name,
    email: customer.email,
    currency: customer.currency,
    primary_wallet_id: customer.primaryWalletId,
    external_id: customer.externalId,
    metadata: customer.metadata,
    created_at: customer.createdAt.toISOString(),
  };
}
