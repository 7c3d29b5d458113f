import { Client } from 'pg';
import { DISTRIBUTION_COLUMN } from '@app/shared-kernel';
import { GLOBAL_TABLES, NOT_APPLICATION_TABLES } from '../../support/global-tables';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/**
 * Ready to outgrow one database: every tenant table can be distributed by organization_id
 * (Citus: hash-distributed and colocated on that column) without a redesign. Citus routes a
 * statement to one shard by the distribution column, enforces a PRIMARY KEY or UNIQUE only when
 * it contains that column, and a foreign key between distributed tables only when both sides
 * lead with it (colocated rows). So, read from pg_catalog of the migrated schema:
 * - every table in `public` with an organization_id column leads its primary key, every unique
 *   constraint and unique index, and every foreign key with organization_id, and each foreign
 *   key references a key of a table that leads with its own distribution column;
 * - every table without the column is declared (test/support/global-tables.ts) with where it lives once distributed,
 *   and none of them references a tenant table (a reference or coordinator-local table cannot).
 */
interface TableRow {
  table: string;
  has_column: boolean;
}
interface KeyRow {
  table: string;
  name: string;
  kind: 'primary key' | 'unique constraint' | 'unique index';
  columns: string[];
}
interface ForeignKeyRow {
  table: string;
  name: string;
  columns: string[];
  referenced_table: string;
  referenced_columns: string[];
}

describe('Schema ready for distribution by organization_id (pg_catalog of a migrated database)', () => {
  let database: TestDatabase;
  let db: Client;
  let tables: TableRow[];
  let keys: KeyRow[];
  let foreignKeys: ForeignKeyRow[];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new Client({ connectionString: database.url });
    await db.connect();
    // Ordinary and partitioned tables of `public` (partitions follow their parent).
    tables = (
      await db.query<TableRow>(
        `SELECT c.relname AS table,
                EXISTS (SELECT 1 FROM pg_attribute a
                         WHERE a.attrelid = c.oid AND a.attname = $1 AND a.attnum > 0 AND NOT a.attisdropped) AS has_column
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          ORDER BY c.relname`,
        [DISTRIBUTION_COLUMN],
      )
    ).rows.filter((row) => !NOT_APPLICATION_TABLES.has(row.table));
    // Every unique index, whether it backs a PRIMARY KEY, a UNIQUE constraint, or stands alone;
    // an expression column reads as NULL, so it leads with nothing.
    keys = (
      await db.query<KeyRow>(
        `SELECT t.relname AS table, i.relname AS name,
                CASE WHEN x.indisprimary THEN 'primary key'
                     WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.contype = 'u')
                       THEN 'unique constraint'
                     ELSE 'unique index' END AS kind,
                ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k (attnum, ord)
                        LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                       WHERE k.ord <= x.indnkeyatts ORDER BY k.ord) AS columns
           FROM pg_index x
           JOIN pg_class i ON i.oid = x.indexrelid
           JOIN pg_class t ON t.oid = x.indrelid
           JOIN pg_namespace n ON n.oid = t.relnamespace
          WHERE n.nspname = 'public' AND x.indisunique
          ORDER BY t.relname, i.relname`,
      )
    ).rows;
    foreignKeys = (
      await db.query<ForeignKeyRow>(
        `SELECT t.relname AS table, k.conname AS name, r.relname AS referenced_table,
                ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS c (attnum, ord)
                        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = c.attnum ORDER BY c.ord) AS columns,
                ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS c (attnum, ord)
                        JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = c.attnum ORDER BY c.ord) AS referenced_columns
           FROM pg_constraint k
           JOIN pg_class t ON t.oid = k.conrelid
           JOIN pg_class r ON r.oid = k.confrelid
           JOIN pg_namespace n ON n.oid = t.relnamespace
          WHERE n.nspname = 'public' AND k.contype = 'f'
          ORDER BY t.relname, k.conname`,
      )
    ).rows;
  });
  afterAll(async () => {
    await db?.end();
    await database?.drop();
  });

  const tenantTables = () => tables.filter((row) => row.has_column).map((row) => row.table);
  /** The column a table is (or would be) distributed by; undefined for a reference or local table. */
  const distributionColumn = (table: string): string | undefined =>
    tables.find((row) => row.table === table)?.has_column ? DISTRIBUTION_COLUMN : GLOBAL_TABLES[table]?.distributedBy;
  const leads = (columns: string[], column: string | undefined) => column !== undefined && columns[0] === column;

  it('reads a schema with tenant tables, keys and foreign keys in it', () => {
    expect(tenantTables().length).toBeGreaterThan(30);
    expect(keys.length).toBeGreaterThan(tenantTables().length);
    expect(foreignKeys.length).toBeGreaterThan(30);
  });

  it('declares every table without organization_id, with a reason, and no table that has the column', () => {
    const undeclared = tables.filter((row) => !row.has_column && !(row.table in GLOBAL_TABLES)).map((row) => row.table);
    const declaredWithColumn = tables.filter((row) => row.has_column && row.table in GLOBAL_TABLES).map((row) => row.table);
    const declaredMissing = Object.keys(GLOBAL_TABLES).filter((table) => !tables.some((row) => row.table === table));
    expect({ undeclared, declaredWithColumn, declaredMissing }).toEqual({
      undeclared: [],
      declaredWithColumn: [],
      declaredMissing: [],
    });
    for (const { reason } of Object.values(GLOBAL_TABLES)) expect(reason.length).toBeGreaterThan(20);
  });

  it('gives every tenant table a primary key led by organization_id', () => {
    const offenders = tenantTables().flatMap((table) => {
      const primary = keys.find((key) => key.table === table && key.kind === 'primary key');
      if (!primary) return [`${table}: no primary key`];
      return leads(primary.columns, DISTRIBUTION_COLUMN) ? [] : [`${table}.${primary.name} (${primary.columns.join(', ')})`];
    });
    expect(offenders).toEqual([]);
  });

  it('leads every unique constraint and unique index with the distribution column', () => {
    const offenders = keys
      .filter((key) => {
        const column = distributionColumn(key.table);
        // A coordinator-local table keeps whatever keys it needs: it is never split.
        return column !== undefined && !leads(key.columns, column);
      })
      .map((key) => `${key.table}.${key.name}: ${key.kind} (${key.columns.map((c) => c ?? '<expression>').join(', ')})`);
    expect(offenders).toEqual([]);
  });

  it('leads every foreign key of a tenant table with organization_id, referencing a key led by the distribution column', () => {
    const offenders = foreignKeys
      .filter((fk) => distributionColumn(fk.table) === DISTRIBUTION_COLUMN)
      .filter(
        (fk) => !leads(fk.columns, DISTRIBUTION_COLUMN) || !leads(fk.referenced_columns, distributionColumn(fk.referenced_table)),
      )
      .map(
        (fk) =>
          `${fk.table}.${fk.name}: (${fk.columns.join(', ')}) -> ${fk.referenced_table} (${fk.referenced_columns.join(', ')})`,
      );
    expect(offenders).toEqual([]);
  });

  it('lets no table without a distribution column reference a tenant table, nor the root reference anything', () => {
    const offenders = foreignKeys
      .filter((fk) => distributionColumn(fk.table) !== DISTRIBUTION_COLUMN)
      .map(
        (fk) =>
          `${fk.table}.${fk.name}: (${fk.columns.join(', ')}) -> ${fk.referenced_table} (${fk.referenced_columns.join(', ')})`,
      );
    expect(offenders).toEqual([]);
  });
});
