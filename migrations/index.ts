import { billingWalletMigrations } from '@app/billing-wallet';
import { catalogMigrations } from '@app/catalog';
import { documentsMigrations } from '@app/documents';
import { identityMigrations } from '@app/identity';
import { composeMigrations, platformMigrations } from '@app/shared-kernel';
import { webhooksMigrations } from '@app/webhooks';
import { DistributionReadyKeys1763806000000 } from './1763806000000-distribution-ready-keys';
import { DistributeOnCitus1763807000000 } from './1763807000000-distribute-on-citus';

/**
 * Migrations of the whole schema, not of one context: they change the tables of every context at
 * once (the keys that lead with organization_id; the distribution on Citus), so they belong to the
 * host that runs all of them. A context's own migration goes in its context (see `contextMigrations`).
 */
export const schemaWideMigrations = [DistributionReadyKeys1763806000000, DistributeOnCitus1763807000000];

/**
 * Each context's own migrations, in libs/<context>/src/infrastructure/migrations/ (the platform's in
 * libs/shared-kernel/src/persistence/migrations/), exported by the context's index.ts.
 */
export const contextMigrations = {
  platform: platformMigrations,
  identity: identityMigrations,
  billingWallet: billingWalletMigrations,
  documents: documentsMigrations,
  catalog: catalogMigrations,
  webhooks: webhooksMigrations,
};

/** Every migration apps/api, apps/worker and the CLI run, in timestamp order (composeMigrations). */
export const migrations = composeMigrations(...Object.values(contextMigrations), schemaWideMigrations);
