import 'reflect-metadata';
import { DataSource, DataSourceOptions } from 'typeorm';
import { migrations } from './migrations';

/**
 * The one source of TypeORM options, used by the app (through TypeOrmModule) and by the
 * migration CLI (`npm run migration:*`, through the default export). Entities are registered
 * by each context module (autoLoadEntities); the CLI globs the compiled row classes.
 */
export function dataSourceOptions(url: string, overrides: Partial<PostgresOptions> = {}): PostgresOptions {
  return {
    type: 'postgres',
    url,
    migrations,
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

type PostgresOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing', {
    entities: [`${__dirname}/libs/*/src/**/*.row.js`],
  }),
);
