import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  DISTRIBUTION_COLUMN,
  distributeTenantRoot,
  distributeTenantTable,
  isCitusDatabase,
} from '../libs/shared-kernel/src/persistence/citus-distribution';
import {
  COLUMNS as WALLET_LOCK_COLUMNS,
  RETURNS as WALLET_LOCK_RETURNS,
} from '../libs/billing-wallet/src/infrastructure/migrations/1763800600000-hot-path-plans';

interface ForeignKey {
  table: string;
  name: string;
  definition: string;
}

/**
 * On a Citus coordinator, spreads the organizations over the workers: `organizations` distributed
 * by id, every table of `public` with organization_id distributed by it and colocated with it (so
 * an organization's rows of every table live in one shard group and its statements route to one
 * node). Everything else stays a plain table on the coordinator: the migration history, pg-boss's
 * schema, `payment_webhook_events` and `legacy_sign_ins` (looked up before a tenant is known). There
 * is no shared lookup table to make a reference table. On plain PostgreSQL this does nothing.
 *
 * Citus distributes a table only when every foreign key it holds points at an already distributed,
 * colocated table, and the deferred keys between products/product_versions and plans/plan_versions
 * run in a circle: so the foreign keys between the application's tables are dropped, the tables
 * distributed, and the same keys re-created (they all lead with organization_id, so Citus enforces
 * them shard by shard). The `plans` status-count triggers need `citus.enable_unsafe_triggers` (they
 * write `plan_status_counts`, colocated: the same shard group). Rows already present move to the
 * shards.
 *
 * wallet_lock finds each wallet by its id and checks the tenant on the row found (see
 * HotPathPlans): Citus routes, and so may lock, only a statement that names the organization by
 * equality, so on Citus it names it (each shard's planner then finds the row by its primary key),
 * in the correlated lookup of the open lots too (by the parameter: Citus does not carry the wallet's
 * organization into it, and would read the lots of every shard).
 */
export class DistributeOnCitus1763807000000 implements MigrationInterface {
  name = 'DistributeOnCitus1763807000000';

  async up(q: QueryRunner): Promise<void> {
    if (!(await isCitusDatabase(q))) return;
    await q.query(`SET LOCAL citus.enable_unsafe_triggers = on`);
    await q.query(`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`);

    const foreignKeys: ForeignKey[] = await q.query(`
      SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
        FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE c.contype = 'f' AND n.nspname = 'public'
       ORDER BY c.conrelid::regclass::text, c.conname`);
    for (const key of foreignKeys) await q.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${key.name}`);

    await distributeTenantRoot(q);
    const tenantTables: { table: string }[] = await q.query(
      `SELECT c.relname AS table
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped)
        ORDER BY c.relname`,
      [DISTRIBUTION_COLUMN],
    );
    for (const { table } of tenantTables) await distributeTenantTable(q, table);

    for (const key of foreignKeys) await q.query(`ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} ${key.definition}`);

    await q.query(`
      CREATE OR REPLACE FUNCTION wallet_lock(p_organization_id uuid, p_workspace_id uuid, p_ids uuid[])
      ${WALLET_LOCK_RETURNS}
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      DECLARE
        v_id uuid;
      BEGIN
        FOR v_id IN SELECT DISTINCT k FROM unnest(p_ids) AS k WHERE k IS NOT NULL ORDER BY k LOOP
          PERFORM 1 FROM wallets w
            WHERE w.organization_id = p_organization_id AND w.workspace_id = p_workspace_id AND w.id = v_id
            FOR UPDATE OF w;
          RETURN QUERY
            SELECT ${WALLET_LOCK_COLUMNS.replace('l.organization_id = w.organization_id', 'l.organization_id = p_organization_id')}
              FROM wallets w
             WHERE w.organization_id = p_organization_id AND w.workspace_id = p_workspace_id AND w.id = v_id;
        END LOOP;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (!(await isCitusDatabase(q))) return;
    const tables: { table: string }[] = await q.query(
      `SELECT logicalrelid::regclass::text AS table FROM pg_dist_partition ORDER BY (logicalrelid::regclass::text = 'organizations')`,
    );
    await q.query(`SET LOCAL citus.enable_unsafe_triggers = on`);
    for (const { table } of tables) await q.query(`SELECT undistribute_table($1, cascade_via_foreign_keys => true)`, [table]);
  }
}
