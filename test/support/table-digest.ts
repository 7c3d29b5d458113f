import { DataSource } from 'typeorm';

/**
 * "No state change", measured: one md5 per table of the `public` schema (every row as JSON, minus
 * ignored columns, in a stable order; tables found in pg_catalog, so a table added later is
 * covered), taken before and after; equal digests, unchanged tables, and a difference names the table.
 */
export type TableColumns = Record<string, string[]>;

/** Written after a use, out of band: not a side effect of the request that used the key. */
const BOOKKEEPING_COLUMNS = ['last_used_at'];
/** What a refused request may legitimately write: its own stored answer, its rate-limit window, its sign-in attempt. */
const BOOKKEEPING_TABLES = ['idempotency_records', 'rate_limit_windows', 'sign_in_attempts'];

async function publicTables(db: DataSource): Promise<string[]> {
  const rows: Array<{ name: string }> = await db.query(
    `SELECT c.relname AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  return rows.map((row) => row.name);
}

/** Every table but bookkeeping, each with the columns to ignore. */
export async function stateTables(db: DataSource): Promise<TableColumns> {
  return Object.fromEntries(
    (await publicTables(db)).filter((table) => !BOOKKEEPING_TABLES.includes(table)).map((table) => [table, BOOKKEEPING_COLUMNS]),
  );
}

/** One digest per listed table (rows as JSON, minus the listed columns). */
export async function tableDigests(db: DataSource, tables: TableColumns): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const [table, ignored] of Object.entries(tables)) {
    const [{ digest }] = await db.query(
      `SELECT md5(coalesce(string_agg((to_jsonb(x) - $1::text[])::text, '|' ORDER BY (to_jsonb(x) - $1::text[])::text), '')) AS digest
         FROM "${table}" x`,
      [ignored],
    );
    digests[table] = digest;
  }
  return digests;
}

/** Every table of the schema but those in `skip`, bookkeeping columns (or `ignoredColumns`) left out. */
export async function tableDigest(
  db: DataSource,
  options: { skip?: string[]; ignoredColumns?: string[] } = {},
): Promise<Record<string, string>> {
  const ignored = options.ignoredColumns ?? BOOKKEEPING_COLUMNS;
  const tables = (await publicTables(db)).filter((table) => !(options.skip ?? []).includes(table));
  return tableDigests(db, Object.fromEntries(tables.map((table) => [table, ignored])));
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
