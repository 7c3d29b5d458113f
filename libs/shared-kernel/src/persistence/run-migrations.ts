import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { MigrationClass } from './migration-list';

// Any fixed 64-bit number: serialises concurrent starts so migrations never run twice at once.
const MIGRATION_LOCK_KEY = 7_210_441_998_001;

/** Applies the host's pending migrations under an advisory lock; returns the names applied. */
export async function runMigrations(databaseUrl: string, migrations: readonly MigrationClass[]): Promise<string[]> {
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl, { migrations: [...migrations] }), extra: { max: 1 } });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((migration) => migration.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await dataSource.destroy();
  }
}

/** Migrations the code knows that the database has not applied yet (readiness). */
export async function pendingMigrationCount(dataSource: DataSource): Promise<number> {
  const known = dataSource.migrations.map((migration) => migration.name);
  const rows: { name: string }[] = await dataSource.query('SELECT name FROM schema_migrations');
  const applied = new Set(rows.map((row) => row.name));
  return known.filter((name) => name && !applied.has(name)).length;
}
