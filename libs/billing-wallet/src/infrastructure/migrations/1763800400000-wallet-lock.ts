import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Locking and reading wallets in one round trip. The lock comes first, in id order (two
 * transfers in opposite directions never deadlock); the read is a second statement of the
 * same call, so that (in READ COMMITTED) it takes a fresh snapshot and sees the lots that the
 * previous lock holder spent. One statement doing both would re-read the locked wallet row but
 * see its lots as of its own, older snapshot, and spend them twice.
 */
export class WalletLock1763800400000 implements MigrationInterface {
  name = 'WalletLock1763800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION wallet_lock(p_organization_id uuid, p_workspace_id uuid, p_ids uuid[])
      RETURNS TABLE (organization_id uuid, workspace_id uuid, id uuid, customer_id uuid, currency char(3), is_primary boolean,
                     cash_balance numeric, promotional_balance numeric, held_balance numeric, credit_limit numeric, max_balance numeric,
                     max_single_credit numeric, low_balance_threshold numeric, auto_topup_enabled boolean, auto_topup_amount numeric,
                     auto_topup_payment_method_id text, version integer, created_at timestamptz, updated_at timestamptz, lots json)
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      BEGIN
        PERFORM 1 FROM wallets w
          WHERE w.organization_id = p_organization_id AND w.workspace_id = p_workspace_id AND w.id = ANY (p_ids)
          ORDER BY w.id
          FOR UPDATE OF w;
        RETURN QUERY
          SELECT w.organization_id, w.workspace_id, w.id, w.customer_id, w.currency, w.is_primary, w.cash_balance::numeric,
                 w.promotional_balance::numeric, w.held_balance::numeric, w.credit_limit::numeric, w.max_balance::numeric,
                 w.max_single_credit::numeric, w.low_balance_threshold::numeric, w.auto_topup_enabled, w.auto_topup_amount::numeric,
                 w.auto_topup_payment_method_id, w.version, w.created_at, w.updated_at,
                 COALESCE((SELECT json_agg(json_build_object('id', l.id, 'amount', l.amount::text, 'remaining', l.remaining::text,
                                                             'expires_at', l.expires_at, 'created_at', l.created_at))
                             FROM promotional_lots l
                            WHERE l.organization_id = w.organization_id AND l.workspace_id = w.workspace_id AND l.wallet_id = w.id
                              AND l.remaining > 0),
                          '[]'::json)
            FROM wallets w
           WHERE w.organization_id = p_organization_id AND w.workspace_id = p_workspace_id AND w.id = ANY (p_ids);
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION wallet_lock(uuid, uuid, uuid[])');
  }
}
