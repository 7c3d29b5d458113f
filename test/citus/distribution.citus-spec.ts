import { Client } from 'pg';
import { DISTRIBUTION_COLUMN, distributeTenantTable, TENANT_ROOT_TABLE } from '@app/shared-kernel';
import { COORDINATOR_TENANT_TABLES, GLOBAL_TABLES, NOT_APPLICATION_TABLES } from '../support/global-tables';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { assertCitusCoordinator } from './citus-database';

interface Placement {
  table: string;
  has_column: boolean;
  method: string | null;
  column: string | null;
  colocated: boolean | null;
}

/**
 * The migrations on a Citus coordinator: every tenant table distributed by organization_id and
 * colocated with `organizations` (distributed by id); the tables without a tenant stay where
 * test/support/global-tables.ts says; a table added later by a migration through
 * distributeTenantTable joins them.
 */
describe('Distribution on Citus (pg_dist_partition of a migrated database)', () => {
  let database: TestDatabase;
  let db: Client;

  const placements = async (): Promise<Placement[]> =>
    (
      await db.query<Placement>(
        `SELECT c.relname AS table,
                EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped) AS has_column,
                p.partmethod::text AS method,
                CASE WHEN p.partmethod = 'h' THEN column_to_column_name(p.logicalrelid, p.partkey) END AS column,
                p.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = $2::regclass) AS colocated
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
          WHERE n.nspname IN ('public', 'pgboss') AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          ORDER BY c.relname`,
        [DISTRIBUTION_COLUMN, TENANT_ROOT_TABLE],
      )
    ).rows;

  beforeAll(async () => {
    await assertCitusCoordinator(process.env.DATABASE_URL!);
    database = await createTestDatabase();
    db = new Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await database?.drop();
  });

  it('distributes every table with organization_id by it, colocated with organizations, but the coordinator-only ones', async () => {
    const all = (await placements()).filter((row) => row.has_column);
    const tenant = all.filter((row) => !(row.table in COORDINATOR_TENANT_TABLES));
    expect(tenant.length).toBeGreaterThan(30);
    // … except those kept on the coordinator, each for its reason.
    expect(all.filter((row) => row.table in COORDINATOR_TENANT_TABLES).map(({ table, method }) => ({ table, method }))).toEqual(
      Object.keys(COORDINATOR_TENANT_TABLES).map((table) => ({ table, method: null })),
    );
    const misplaced = tenant.filter((row) => row.method !== 'h' || row.column !== DISTRIBUTION_COLUMN || !row.colocated);
    expect(misplaced).toEqual([]);
  });

  it('distributes organizations by id and leaves the tables without a tenant on the coordinator', async () => {
    const rows = await placements();
    const global = rows.filter((row) => !row.has_column);
    const expected = global.map((row) => ({
      table: row.table,
      method: GLOBAL_TABLES[row.table]?.distributedBy ? 'h' : null,
      column: GLOBAL_TABLES[row.table]?.distributedBy ?? null,
    }));
    expect(global.map(({ table, method, column }) => ({ table, method, column }))).toEqual(expected);
    expect(global.map((row) => row.table)).toEqual(expect.arrayContaining([...NOT_APPLICATION_TABLES]));
  });

  it('distributes a tenant table a later migration adds through distributeTenantTable, with its rows', async () => {
    await db.query(
      `CREATE TABLE later_tenant_things (organization_id uuid NOT NULL, id uuid NOT NULL, PRIMARY KEY (organization_id, id))`,
    );
    await db.query(`INSERT INTO later_tenant_things VALUES (gen_random_uuid(), gen_random_uuid())`);
    // A migration's QueryRunner answers rows; so does this.
    const runner = { query: async (sql: string, parameters?: unknown[]) => (await db.query(sql, parameters)).rows };
    await distributeTenantTable(runner, 'later_tenant_things');
    await distributeTenantTable(runner, 'later_tenant_things');
    const row = (await placements()).find((placement) => placement.table === 'later_tenant_things');
    expect(row).toMatchObject({ method: 'h', column: DISTRIBUTION_COLUMN, colocated: true });
    expect((await db.query('SELECT count(*)::int AS n FROM later_tenant_things')).rows[0].n).toBe(1);
  });
});
