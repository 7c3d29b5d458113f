import { DataSource } from 'typeorm';

/**
 * "No state change", measured: one digest per table (its rows as JSON, minus ignored columns,
 * in a stable order), taken before and after; equal digests, unchanged tables.
 */
export type TableColumns = Record<string, string[]>;

/** Bookkeeping a refused request may legitimately write, and columns written out of band. */
const IGNORED_TABLES = new Set(['idempotency_records', 'rate_limit_windows', 'migrations', 'typeorm_metadata']);
const IGNORED_COLUMNS = ['last_used_at'];

/** Every table of the public schema but bookkeeping, each with the columns to ignore. */
export async function stateTables(db: DataSource): Promise<TableColumns> {
  const rows: Array<{ tablename: string }> = await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
  return Object.fromEntries(
    rows.filter(({ tablename }) => !IGNORED_TABLES.has(tablename)).map(({ tablename }) => [tablename, IGNORED_COLUMNS]),
  );
}

/** One digest per table (rows as JSON, minus the listed columns): equal digests, unchanged tables. */
export async function tableDigests(db: DataSource, tables: TableColumns): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const [table, ignored] of Object.entries(tables)) {
    const [{ digest }] = await db.query(
      `SELECT md5(coalesce(string_agg((to_jsonb(x) - $1::text[])::text, '|' ORDER BY (to_jsonb(x) - $1::text[])::text), '')) AS digest
         FROM ${table} x`,
      [ignored],
    );
    digests[table] = digest;
  }
  return digests;
}

/**
 * What a run of refused requests must not leave behind: an idempotency record of a success (an
 * effect was committed), an advisory lock still held (a key claimed and never released), or a
 * session of the app's pool idle inside a transaction.
 */
export async function leftovers(
  db: DataSource,
): Promise<{ successRecords: number; advisoryLocks: number; idleInTransaction: number }> {
  const [row] = await db.query(
    `SELECT (SELECT count(*)::int FROM idempotency_records WHERE response_status < 400) AS "successRecords",
            (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS "advisoryLocks",
            (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database()
                AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()) AS "idleInTransaction"`,
  );
  return row;
}
