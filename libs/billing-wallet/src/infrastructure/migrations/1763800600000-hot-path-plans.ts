import { MigrationInterface, QueryRunner } from 'typeorm';

export const RETURNS = `RETURNS TABLE (organization_id uuid, workspace_id uuid, id uuid, customer_id uuid, currency char(3), is_primary boolean,
                     cash_balance numeric, promotional_balance numeric, held_balance numeric, credit_limit numeric, max_balance numeric,
                     max_single_credit numeric, low_balance_threshold numeric, auto_topup_enabled boolean, auto_topup_amount numeric,
                     auto_topup_payment_method_id text, version integer, created_at timestamptz, updated_at timestamptz, lots json)`;

export const COLUMNS = `w.organization_id, w.workspace_id, w.id, w.customer_id, w.currency, w.is_primary, w.cash_balance::numeric,
                 w.promotional_balance::numeric, w.held_balance::numeric, w.credit_limit::numeric, w.max_balance::numeric,
                 w.max_single_credit::numeric, w.low_balance_threshold::numeric, w.auto_topup_enabled, w.auto_topup_amount::numeric,
                 w.auto_topup_payment_method_id, w.version, w.created_at, w.updated_at,
                 COALESCE((SELECT json_agg(json_build_object('id', l.id, 'amount', l.amount::text, 'remaining', l.remaining::text,
                                                             'expires_at', l.expires_at, 'created_at', l.created_at))
                             FROM promotional_lots l
                            WHERE l.organization_id = w.organization_id AND l.workspace_id = w.workspace_id AND l.wallet_id = w.id
                              AND l.remaining > 0),
                          '[]'::json)`;

/**
 * The wallet's tenant, checked on the row found by id rather than searched for: the planner
 * cannot walk an index on (organization_id, workspace_id) for a row-wise IS NOT DISTINCT FROM
 * (the columns are NOT NULL, so it means equality), and the unique index on id is then the only
 * one that bounds the scan.
 */
const TENANT_CHECK = '(w.organization_id, w.workspace_id) IS NOT DISTINCT FROM (p_organization_id, p_workspace_id)';

/**
 * Wallet locks whose plan does not depend on statistics. `id = ANY (p_ids)` left the planner free
 * to walk the primary key on (organization_id, workspace_id) and filter `id`: with statistics
 * taken while the table was small (or empty), that prefix looks like a row or two, and a lock
 * read every wallet of the workspace (a generic plan, so on every call). Equality on every
 * column of the primary key is not enough: every index of the table leads with those two
 * columns, each looks like one row, and the tie goes to whichever is cheaper by a hair (the list
 * index, say, which then reads the workspace). Now each wallet is locked, then read, by its id
 * alone through wallets_id_key, one id at a time in id order (two transfers in opposite
 * directions still never deadlock), the tenant checked on the row: a unique lookup, whatever
 * the estimates. The read stays a statement of its own after the lock, so that (in READ COMMITTED)
 * it sees the lots that the previous lock holder spent.
 */
export class HotPathPlans1763800600000 implements MigrationInterface {
  name = 'HotPathPlans1763800600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION wallet_lock(p_organization_id uuid, p_workspace_id uuid, p_ids uuid[])
      ${RETURNS}
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      DECLARE
        v_id uuid;
      BEGIN
        FOR v_id IN SELECT DISTINCT k FROM unnest(p_ids) AS k WHERE k IS NOT NULL ORDER BY k LOOP
          PERFORM 1 FROM wallets w
            WHERE w.id = v_id AND ${TENANT_CHECK}
            FOR UPDATE OF w;
          RETURN QUERY
            SELECT ${COLUMNS}
              FROM wallets w
             WHERE w.id = v_id AND ${TENANT_CHECK};
        END LOOP;
      END
      $$`);
    // The (source, reference) lookup of a money operation, led by the wallet rather than the
    // tenant: every other index of the ledger leads with (organization_id, workspace_id,
    // wallet_id) and would read the wallet's whole history on a tie.
    await q.query(`
      CREATE INDEX wallet_transactions_reference_lookup_idx ON wallet_transactions (wallet_id, source, reference)
        WHERE reference IS NOT NULL AND type IN ('credit', 'debit', 'adjustment')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX wallet_transactions_reference_lookup_idx');
    await q.query(`
      CREATE OR REPLACE FUNCTION wallet_lock(p_organization_id uuid, p_workspace_id uuid, p_ids uuid[])
      ${RETURNS}
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      BEGIN
        PERFORM 1 FROM wallets w
          WHERE w.organization_id = p_organization_id AND w.workspace_id = p_workspace_id AND w.id = ANY (p_ids)
          ORDER BY w.id
          FOR UPDATE OF w;
        RETURN QUERY
          SELECT ${COLUMNS}
            FROM wallets w
           WHERE w.organization_id = p_organization_id AND w.workspace_id = p_workspace_id AND w.id = ANY (p_ids);
      END
      $$`);
  }
}
