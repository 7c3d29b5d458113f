import { MigrationInterface, QueryRunner } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** A customer without a primary wallet (`c` is the customers row). */
const WITHOUT_PRIMARY = `NOT EXISTS (
  SELECT 1 FROM wallets p
   WHERE p.organization_id = c.organization_id AND p.workspace_id = c.workspace_id AND p.customer_id = c.id AND p.is_primary)`;

/**
 * Primary wallets used to be opened by an outbox subscriber after the customer had committed;
 * they now commit with the customer, and that subscriber is gone. A customer whose event was
 * still waiting (or failing) at the upgrade gets its primary wallet here, as the subscriber
 * would have opened it: a wallet of the customer's currency opened meanwhile is promoted,
 * otherwise one is opened as of the customer's creation, audited as the system.
 */
export class PrimaryWalletForEveryCustomer1763800700000 implements MigrationInterface {
  name = 'PrimaryWalletForEveryCustomer1763800700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE wallets w SET is_primary = true, version = w.version + 1, updated_at = now()
         FROM customers c
        WHERE w.organization_id = c.organization_id AND w.workspace_id = c.workspace_id AND w.customer_id = c.id
          AND w.currency = c.currency AND ${WITHOUT_PRIMARY}`,
    );
    const customers: Array<{ id: string }> = await q.query(`SELECT c.id FROM customers c WHERE ${WITHOUT_PRIMARY}`);
    if (customers.length === 0) return;
    await q.query(
      `WITH opened AS (
         SELECT c.organization_id, c.workspace_id, c.id AS customer_id, c.currency, c.created_at, o.wallet_id, o.audit_id
           FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS o (customer_id, wallet_id, audit_id)
           JOIN customers c ON c.id = o.customer_id
       ), wallet AS (
         INSERT INTO wallets (organization_id, workspace_id, id, customer_id, currency, is_primary, created_at, updated_at)
         SELECT organization_id, workspace_id, wallet_id, customer_id, currency, true, created_at, created_at FROM opened
       )
       INSERT INTO audit_events (organization_id, id, workspace_id, action, resource_type, resource_id, principal_type, data, occurred_at)
       SELECT organization_id, audit_id, workspace_id, 'wallet.created', 'wallet', wallet_id, 'system',
              jsonb_build_object('currency', currency, 'primary', true), now()
         FROM opened`,
      [customers.map((customer) => customer.id), customers.map(() => uuidv7()), customers.map(() => uuidv7())],
    );
  }

  /** The wallets it opened hold money by now; nothing to undo. */
  async down(): Promise<void> {}
}
