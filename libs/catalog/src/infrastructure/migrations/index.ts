import { MigrationClass } from '@app/shared-kernel';
import { CatalogCostsProducts1763804000000 } from './1763804000000-catalog-costs-products';
import { CatalogErrorDetails1763804100000 } from './1763804100000-catalog-error-details';
import { CatalogPlans1763805000000 } from './1763805000000-catalog-plans';
import { PlanListIndexes1763805100000 } from './1763805100000-plan-list-indexes';
import { PlanSubscriberMoves1763805200000 } from './1763805200000-plan-subscriber-moves';
import { PlanCascadesAndReferrers1763805300000 } from './1763805300000-plan-cascades-and-referrers';
import { PlanTimesAfterCreation1763805400000 } from './1763805400000-plan-times-after-creation';
import { PlanMigrationSweep1763805500000 } from './1763805500000-plan-migration-sweep';
import { PlanStatusCounts1763805600000 } from './1763805600000-plan-status-counts';

/**
 * The catalog's tables: costs, products, plans, subscriptions, changes, cascades.
 * A new migration of this context goes in this folder and is appended here; never edited after landing.
 */
export const catalogMigrations: readonly MigrationClass[] = [
  CatalogCostsProducts1763804000000,
  CatalogErrorDetails1763804100000,
  CatalogPlans1763805000000,
  PlanListIndexes1763805100000,
  PlanSubscriberMoves1763805200000,
  PlanCascadesAndReferrers1763805300000,
  PlanTimesAfterCreation1763805400000,
  PlanMigrationSweep1763805500000,
  PlanStatusCounts1763805600000,
];
