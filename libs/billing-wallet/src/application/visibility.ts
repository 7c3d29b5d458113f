import { Actor, isUuid, sameTenant, SharedErrors } from '@app/shared-kernel';
import { walletNotFound } from './wallet-keys';

/** A DataSource or a transaction's EntityManager. */
interface Queryable {
  query(text: string, parameters: unknown[]): Promise<unknown[]>;
}

async function existsInWorkspace(db: Queryable, table: 'wallets' | 'customers', actor: Actor, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await db.query(`SELECT 1 FROM ${table} WHERE id = $3 AND ${sameTenant(null, '$1', '$2')}`, [
    actor.organizationId,
    actor.workspaceId,
    id,
  ]);
  return rows.length > 0;
}

/** 404 for an unknown, malformed or other tenant's wallet: existence never leaks. */
export async function assertWalletVisible(db: Queryable, actor: Actor, walletId: string): Promise<void> {
  if (!(await existsInWorkspace(db, 'wallets', actor, walletId))) throw walletNotFound();
}

export async function assertCustomerVisible(db: Queryable, actor: Actor, customerId: string, param: string): Promise<void> {
  if (!(await existsInWorkspace(db, 'customers', actor, customerId))) {
    throw SharedErrors.CUSTOMER_NOT_FOUND.create('No such customer.', { param });
  }
}
