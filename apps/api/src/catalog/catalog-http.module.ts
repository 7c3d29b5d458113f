import { Module } from '@nestjs/common';
import { CatalogModule } from '@app/catalog';
import { CascadeRunsController, ChangesController } from './changes.controller';
import { CostsController } from './costs.controller';
import { PlansController } from './plans.controller';
import { PlansListController } from './plans-list.controller';
import { ProductsController } from './products.controller';

@Module({ imports: [CatalogModule], controllers: [CostsController, ProductsController, PlansController, PlansListController, ChangesController, CascadeRunsController] })
export class CatalogHttpModule {}
