import { Module } from '@nestjs/common';
import { CatalogModule } from '@app/catalog';
import { CascadeRunsController, ChangesController } from './changes.controller';
import { CostsController } from './costs.controller';
import { PlanInsightsController } from './plan-insights.controller';
import { PlansController } from './plans.controller';
import { ProductsController } from './products.controller';

@Module({ imports: [CatalogModule], controllers: [CostsController, ProductsController, PlanInsightsController, PlansController, ChangesController, CascadeRunsController] })
export class CatalogHttpModule {}
