import { Module } from '@nestjs/common';
import { GetCustomerQuery } from '@app/identity';
import { RequiresBusHandlers } from '@app/shared-kernel';
import { CostCascades } from './application/costs/cost-cascades';
import { CostReader } from './application/costs/cost-reader';
import { Pricing } from './application/pricing';
import { ProductReleases } from './application/product-releases';
import { ChangeRepository, OrgCostRepository, PlanRepository, ProductRepository } from './domain/repositories';
import { PlanMemberships } from './application/plans/plan-memberships';
import { TypeOrmPlanMemberships } from './infrastructure/typeorm-plan-memberships.reads';
import { PlanVersionReads } from './application/plans/plan-version-reads';
import { TypeOrmPlanVersionReads } from './infrastructure/typeorm-plan-version.reads';
import { TypeOrmPlanRepository } from './infrastructure/typeorm-plan.repository';
import { CascadeTaskStore } from './application/cascade-task.store';
import { TypeOrmCascadeTaskStore } from './infrastructure/typeorm-cascade-task.store';
import { PlanReleases } from './application/plan-releases';
import { PlanResolver } from './application/plan-resolution';
import { PublishTargets } from './application/changes/publish-targets';
import { PlanCascades } from './application/plan-cascades';
import { PlanRepublisher } from './application/plans/plan-republisher';
import { ChangeReads } from './application/changes/change-reads';
import { TypeOrmChangeReads } from './infrastructure/typeorm-change.reads';
import { TypeOrmChangeRepository } from './infrastructure/typeorm-change.repository';
import { TypeOrmOrgCostRepository } from './infrastructure/typeorm-org-cost.repository';
import { ProductVersionReads } from './application/products/product-version-reads';
import { TypeOrmProductVersionReads } from './infrastructure/typeorm-product-version.reads';
import { TypeOrmProductRepository } from './infrastructure/typeorm-product.repository';
import { MigrationRunner, SubscriberMoves } from './application/plan-migrations/migration-runner';
import { PlanGoLiveListener, PlanMigrationRepository, SubscriptionRepository } from './domain/subscriber-ports';
import { TypeOrmPlanMigrationRepository } from './infrastructure/typeorm-plan-migration.repository';
import { TypeOrmSubscriptionRepository } from './infrastructure/typeorm-subscription.repository';
import { CostHandlers } from './application/costs';
import { ProductHandlers } from './application/products';
import { ChangeHandlers } from './application/changes';
import { CascadeRunHandlers } from './application/cascade-runs';
import { PlanHandlers } from './application/plans';
import { SubscriptionHandlers } from './application/subscriptions';
import { PlanMigrationHandlers } from './application/plan-migrations';
import { CatalogEvents } from './application/catalog-events';
import { CascadeRuns } from './application/cascade-runs/cascade-runs';

/** Costs, products, plans and their versions, changes, cascades, subscriptions. */
// A subscription names a customer, read from identity (the host registers IdentityModule).
@RequiresBusHandlers(GetCustomerQuery)
@Module({
  providers: [
    CatalogEvents,
    CascadeRuns,
    { provide: ProductRepository, useClass: TypeOrmProductRepository },
    { provide: OrgCostRepository, useClass: TypeOrmOrgCostRepository },
    { provide: ChangeRepository, useClass: TypeOrmChangeRepository },
    { provide: ChangeReads, useClass: TypeOrmChangeReads },
    { provide: PlanMemberships, useClass: TypeOrmPlanMemberships },
    { provide: PlanVersionReads, useClass: TypeOrmPlanVersionReads },
    { provide: ProductVersionReads, useClass: TypeOrmProductVersionReads },
    { provide: PlanRepository, useClass: TypeOrmPlanRepository },
    { provide: CascadeTaskStore, useClass: TypeOrmCascadeTaskStore },
    PlanReleases,
    PlanResolver,
    PublishTargets,
    Pricing,
    ProductReleases,
    CostCascades,
    CostReader,
    PlanCascades,
    PlanRepublisher,
    { provide: SubscriptionRepository, useClass: TypeOrmSubscriptionRepository },
    { provide: PlanMigrationRepository, useClass: TypeOrmPlanMigrationRepository },
    { provide: PlanGoLiveListener, useClass: SubscriberMoves },
    MigrationRunner,
    ...CostHandlers,
    ...ProductHandlers,
    ...ChangeHandlers,
    ...CascadeRunHandlers,
    ...PlanHandlers,
    ...SubscriptionHandlers,
    ...PlanMigrationHandlers,
  ],
  // Tests and operators drive the jobs directly.
  exports: [ProductReleases, PlanReleases, CostCascades, PlanCascades, CascadeRuns, MigrationRunner],
})
export class CatalogModule {}
