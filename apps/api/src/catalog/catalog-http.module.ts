import { Module } from '@nestjs/common';
import { CatalogModule } from '@app/catalog';
import { CascadeRunsController, ChangesController } from './changes.controller';
import { CostsController } from './costs.controller';
import { PlansController } from './plans.controller';
import { ProductsController } from './products.controller';
import { MigrationsController, PlanMigrationsController, SubscriptionsController } from './subscriptions.controller';

@Module({ imports: [CatalogModule], controllers: [CostsController, ProductsController, PlansController, ChangesController, CascadeRunsController, SubscriptionsController, PlanMigrationsController, MigrationsController] })
export class CatalogHttpModule {}
