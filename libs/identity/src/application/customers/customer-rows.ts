import { Actor } from '@app/shared-kernel';
import { CustomerWallets } from '../../domain/customer-wallets';
import { CustomerView } from './customer.view';

export interface CustomerRow {
  workspace_id: string;
  id: string;
  name: string;
  email: string | null;
  currency: string;
  external_id: string | null;
  metadata: Record<string, string>;
  created_at: Date;
}

export const COLUMNS = 'workspace_id, id, name, email, currency, external_id, metadata, created_at';

/** The rows with their customers' current primary wallets, read through the wallet context's port. */
export async function toViews(wallets: CustomerWallets, actor: Actor, rows: CustomerRow[]): Promise<CustomerView[]> {
  const ids = rows.map((row) => row.id);
  const primaries = ids.length > 0 ? await wallets.primaryWalletIds(actor, ids) : new Map<string, string>();
  return rows.map((row) => {
    const primaryWalletId = primaries.get(row.id);
    // A customer commits with its primary wallet, and make_primary swaps in one transaction.
    if (!primaryWalletId) throw new Error(`Customer ${row.id} has no primary wallet`);
    return {
      workspaceId: row.workspace_id,
      id: row.id,
      name: row.name,
      email: row.email,
      currency: row.currency,
      externalId: row.external_id,
      metadata: row.metadata,
      createdAt: row.created_at,
      primaryWalletId,
    };
  });
}
