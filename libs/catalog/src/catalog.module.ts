import { Module } from '@nestjs/common';
import { GetCustomerQuery } from '@app/identity';
import { RequiresBusHandlers } from '@app/shared-kernel';
import { CancelChangeHandler, CreateChangeHandler } from './application/change.handlers';
import { GetCascadeRunHandler, GetChangeHandler, ListCascadeTasksHandler } from './application/change.queries';
import { CostCascades } from './application/cost-cascades';
import { CreateCostHandler, RemoveCostHandler, RestoreCostHandler, UpdateCostHandler } from './application/cost.handlers';
import {
  CostReader,
  GetCostHandler,
  ListCostConsumersHandler,
  ListCostsHandler,
  ListProductCostsHandler,
} from './application/cost.queries';
import { EvaluateFormulaHandler } from './application/evaluate-formula';
import { Pricing } from './application/pricing';
import { ProductReleases } from './application/product-releases';
import {
  CreateProductHandler,
  DiscardProductDraftHandler,
  OpenProductDraftHandler,
  UpdateProductHandler,
} from './application/product.handlers';
import {
  GetProductDraftHandler,
  GetProductHandler,
  GetProductVersionHandler,
  ListProductsHandler,
  ListProductVersionsHandler,
} from './application/product.queries';
import { ChangeRepository, OrgCostRepository, PlanRepository, ProductRepository } from './domain/repositories';
import { TypeOrmPlanRepository } from './infrastructure/typeorm-plan.repository';
import { CascadeTaskStore } from './application/cascade-task.store';
import { TypeOrmCascadeTaskStore } from './infrastructure/typeorm-cascade-task.store';
import { PlanReleases } from './application/plan-releases';
import { PlanResolver } from './application/plan-resolution';
import { PublishTargets } from './application/publish-targets';
import { PlanCascades } from './application/plan-cascades';
import {
  GetPlanPublishImpactHandler,
  GetSupersedeForecastHandler,
  GetVersionUsageHandler,
  ListVersionReferrersHandler,
} from './application/plan-insight.queries';
import { CheckPlanPublishHandler } from './application/plan-publish-check';
import { PlanRepublisher, RepublishPlansHandler } from './application/plan-republish';
import {
  AddPlanProductHandler,
  AnnotatePlanVersionHandler,
  CopyPlanHandler,
  CreatePlanHandler,
  DeletePlanHandler,
  DiscardPlanDraftHandler,
  OpenPlanDraftHandler,
  RemovePlanProductHandler,
  UpdatePlanHandler,
  UpdatePlanProductHandler,
} from './application/plan.handlers';
import { GetPlanDraftHandler, GetPlanHandler, GetPlanVersionHandler, ListPlanVersionsHandler } from './application/plan.queries';
import { ListPlansHandler } from './application/plan-list';
import { TypeOrmChangeRepository } from './infrastructure/typeorm-change.repository';
import { TypeOrmOrgCostRepository } from './infrastructure/typeorm-org-cost.repository';
import { TypeOrmProductRepository } from './infrastructure/typeorm-product.repository';
import { MigrationRunner, SubscriberMoves } from './application/migration-runner';
import {
  CancelMigrationHandler,
  CancelSubscriptionHandler,
  CreateSubscriptionHandler,
  MigratePlanHandler,
} from './application/subscription.handlers';
import {
  GetMigrationHandler,
  GetSubscriptionHandler,
  GetSubscriptionsHandler,
  ListMigrationOutcomesHandler,
  ListSubscriptionsHandler,
} from './application/subscription.queries';
import { PlanGoLiveListener, PlanMigrationRepository, SubscriptionRepository } from './domain/subscriber-ports';
import { TypeOrmPlanMigrationRepository } from './infrastructure/typeorm-plan-migration.repository';
import { TypeOrmSubscriptionRepository } from './infrastructure/typeorm-subscription.repository';
import { CatalogEvents } from './application/catalog-events';
import { CascadeRuns } from './application/cascade-runs';

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
    { provide: PlanRepository, useClass: TypeOrmPlanRepository },
    { provide: CascadeTaskStore, useClass: TypeOrmCascadeTaskStore },
    PlanReleases,
    PlanResolver,
    PublishTargets,
    Pricing,
    ProductReleases,
    CostCascades,
    CostReader,
    CreateCostHandler,
    UpdateCostHandler,
    RemoveCostHandler,
    RestoreCostHandler,
    GetCostHandler,
    ListCostsHandler,
    ListCostConsumersHandler,
    ListProductCostsHandler,
    CreateProductHandler,
    UpdateProductHandler,
    OpenProductDraftHandler,
    DiscardProductDraftHandler,
    GetProductHandler,
    GetProductVersionHandler,
    ListProductsHandler,
    ListProductVersionsHandler,
    GetProductDraftHandler,
    CreateChangeHandler,
    CancelChangeHandler,
    GetChangeHandler,
    GetCascadeRunHandler,
    ListCascadeTasksHandler,
    EvaluateFormulaHandler,
    CreatePlanHandler,
    UpdatePlanHandler,
    DeletePlanHandler,
    CopyPlanHandler,
    OpenPlanDraftHandler,
    DiscardPlanDraftHandler,
    AddPlanProductHandler,
    UpdatePlanProductHandler,
    RemovePlanProductHandler,
    AnnotatePlanVersionHandler,
    GetPlanHandler,
    GetPlanDraftHandler,
    GetPlanVersionHandler,
    ListPlanVersionsHandler,
    PlanCascades,
    PlanRepublisher,
    RepublishPlansHandler,
    GetPlanPublishImpactHandler,
    CheckPlanPublishHandler,
    GetSupersedeForecastHandler,
    ListVersionReferrersHandler,
    GetVersionUsageHandler,
    ListPlansHandler,
    { provide: SubscriptionRepository, useClass: TypeOrmSubscriptionRepository },
    { provide: PlanMigrationRepository, useClass: TypeOrmPlanMigrationRepository },
    { provide: PlanGoLiveListener, useClass: SubscriberMoves },
    MigrationRunner,
    CreateSubscriptionHandler,
    CancelSubscriptionHandler,
    MigratePlanHandler,
    CancelMigrationHandler,
    GetSubscriptionHandler,
    GetSubscriptionsHandler,
    ListSubscriptionsHandler,
    GetMigrationHandler,
    ListMigrationOutcomesHandler,
  ],
  // Tests and operators drive the jobs directly.
  exports: [ProductReleases, PlanReleases, CostCascades, PlanCascades, CascadeRuns, MigrationRunner],
})
export class CatalogModule {}
