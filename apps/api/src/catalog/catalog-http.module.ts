import { Module } from '@nestjs/common';
import { CatalogModule } from '@app/catalog';
import { CascadeRunsController, ChangesController } from './changes.controller';
import { CostsController } from './costs.controller';
import { PlanInsightsController } from './plan-insights.controller';
import { PlansController } from './plans.controller';
import { PlansListController } from './plans-list.controller';
import { ProductsController } from './products.controller';
import { MigrationsController, PlanMigrationsController, SubscriptionsController } from './subscriptions.controller';

@Module({
  imports: [CatalogModule],
  // PlanInsightsController first: its POST /plans/republish must not be taken for /plans/:id.
  controllers: [
    CostsController,
    ProductsController,
    PlanInsightsController,
    PlansController,
    PlansListController,
    ChangesController,
    CascadeRunsController,
    SubscriptionsController,
    PlanMigrationsController,
    MigrationsController,
  ],
})
export class CatalogHttpModule {}
