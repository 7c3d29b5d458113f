/** The column every tenant table is distributed by, and the table whose id it names. */
export const DISTRIBUTION_COLUMN = 'organization_id';
export const TENANT_ROOT_TABLE = 'organizations';

/** What these need of a connection: a migration's QueryRunner (its query answers the rows). */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Whether the connected database is a Citus coordinator's (the `citus` extension is installed in it). */
export async function isCitusDatabase(q: Queryable): Promise<boolean> {
  const rows = (await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)) as unknown[];
  return rows.length > 0;
}

async function isDistributed(q: Queryable, table: string): Promise<boolean> {
  const rows = (await q.query(`SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass`, [table])) as unknown[];
  return rows.length > 0;
}

/**
 * Distributes a tenant table by organization_id, colocated with `organizations` (every statement
 * naming one organization then runs on one shard group). A migration that creates a tenant table
 * calls this right after it; on plain PostgreSQL, or when the table is already distributed, it does
 * nothing. Rows the table already holds move to the shards and leave the coordinator.
 */
export async function distributeTenantTable(q: Queryable, table: string): Promise<void> {
  if (!(await isCitusDatabase(q)) || (await isDistributed(q, table))) return;
  await q.query(`SELECT create_distributed_table($1, $2, colocate_with => $3)`, [table, DISTRIBUTION_COLUMN, TENANT_ROOT_TABLE]);
  await q.query(`SELECT truncate_local_data_after_distributing_table($1)`, [table]);
}

/** Distributes the tenant root, `organizations`, by its id: the table every tenant table is colocated with. */
export async function distributeTenantRoot(q: Queryable): Promise<void> {
  if (!(await isCitusDatabase(q)) || (await isDistributed(q, TENANT_ROOT_TABLE))) return;
  await q.query(`SELECT create_distributed_table($1, 'id')`, [TENANT_ROOT_TABLE]);
  await q.query(`SELECT truncate_local_data_after_distributing_table($1)`, [TENANT_ROOT_TABLE]);
}

/** Copies a shared lookup table (no tenant) to every node; nothing on plain PostgreSQL. */
export async function makeReferenceTable(q: Queryable, table: string): Promise<void> {
  if (!(await isCitusDatabase(q)) || (await isDistributed(q, table))) return;
  await q.query(`SELECT create_reference_table($1)`, [table]);
  await q.query(`SELECT truncate_local_data_after_distributing_table($1)`, [table]);
}
