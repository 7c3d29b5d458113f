import { DataSourceOptions } from 'typeorm';

export type PostgresOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/**
 * The one source of TypeORM options, used by PlatformModule (through TypeOrmModule), by
 * runMigrations and by the migration CLI (the repository's ormconfig.ts). Entities are registered
 * by each context module (autoLoadEntities); the migrations are the host's composed list.
 */
export function dataSourceOptions(url: string, overrides: Partial<PostgresOptions> = {}): PostgresOptions {
  return {
    type: 'postgres',
    url,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    uuidExtension: 'pgcrypto',
    applicationName: 'billing-api',
    extra: {
      max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
      // Guard rails: a stuck statement or an idle open transaction must never hold wallet locks.
      statement_timeout: 15_000,
      // A lock wait ends sooner, as 55P03, which a keyed POST's transaction retries (see
      // isTransientWriteFailure): e.g. the writes Citus holds while it splits a tenant's shards.
      lock_timeout: 10_000,
      idle_in_transaction_session_timeout: 30_000,
    },
    ...overrides,
  };
}
