import { CancelMigrationHandler } from './cancel-migration.handler';
import { GetMigrationHandler } from './get-migration.handler';
import { ListMigrationOutcomesHandler } from './list-migration-outcomes.handler';
import { MigratePlanHandler } from './migrate-plan.handler';

/** The handlers of the plan-migrations use cases (commands, then queries), registered by CatalogModule. */
export const PlanMigrationHandlers = [
  CancelMigrationHandler,
  MigratePlanHandler,
  GetMigrationHandler,
  ListMigrationOutcomesHandler,
];
