import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './libs/shared-kernel/src/persistence/data-source-options';
import { migrations } from './migrations';

/**
 * The migration CLI's DataSource (`npm run migration:*`, through the default export): the shared
 * kernel's options with every context's migrations (migrations/index.ts); the CLI globs the
 * compiled row classes.
 */
export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/billing', {
    migrations,
    entities: [`${__dirname}/libs/*/src/**/*.row.js`],
  }),
);
