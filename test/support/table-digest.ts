import { DataSource } from 'typeorm';

/** Bookkeeping a request may touch without being a side effect: `last_used_at` is written in batches after a use. */
const BOOKKEEPING_COLUMNS = ['last_used_at'];

/**
 * One md5 per table of the `public` schema (every row, as JSON, in a stable order; found in
 * pg_catalog, so a table added later is covered), minus bookkeeping columns. Two digests taken
 * around a batch of requests that must change nothing compare equal, and a difference names the table.
 */
export async function tableDigest(
  db: DataSource,
  ignoredColumns: string[] = BOOKKEEPING_COLUMNS,
): Promise<Record<string, string>> {
  const tables: Array<{ name: string }> = await db.query(
    `SELECT c.relname AS name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  const digest: Record<string, string> = {};
  for (const { name } of tables) {
    const [{ hash }] = await db.query(
      `SELECT md5(coalesce(string_agg(r, ',' ORDER BY r), '')) AS hash FROM (SELECT (to_jsonb(x) - $1::text[])::text AS r FROM "${name}" x) rows`,
      [ignoredColumns],
    );
    digest[name] = hash;
  }
  return digest;
}
