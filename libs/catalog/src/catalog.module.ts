import { Module } from '@nestjs/common';
import { CancelChangeHandler, CreateChangeHandler } from './application/change.handlers';
import { GetCascadeRunHandler, GetChangeHandler, ListCascadeTasksHandler } from './application/change.queries';
import { CostCascades } from './application/cost-cascades';
import { CreateCostHandler, RemoveCostHandler, RestoreCostHandler, UpdateCostHandler } from './application/cost.handlers';
import { CostReader, GetCostHandler, ListCostConsumersHandler, ListCostsHandler, ListProductCostsHandler } from './application/cost.queries';
import { EvaluateFormulaHandler } from './application/evaluate-formula';
import { Pricing } from './application/pricing';
import { ProductReleases } from './application/product-releases';
import { CreateProductHandler, DiscardProductDraftHandler, OpenProductDraftHandler, UpdateProductHandler } from './application/product.handlers';
import { GetProductDraftHandler, GetProductHandler, ListProductsHandler, ListProductVersionsHandler } from './application/product.queries';
import { ChangeRepository, OrgCostRepository, ProductRepository } from './domain/repositories';
import { TypeOrmChangeRepository } from './infrastructure/typeorm-change.repository';
import { TypeOrmOrgCostRepository } from './infrastructure/typeorm-org-cost.repository';
import { TypeOrmProductRepository } from './infrastructure/typeorm-product.repository';

/** Costs, products, plans and their versions, changes, cascades, subscriptions. */
@Module({
  providers: [
    { provide: ProductRepository, useClass: TypeOrmProductRepository },
    { provide: OrgCostRepository, useClass: TypeOrmOrgCostRepository },
    { provide: ChangeRepository, useClass: TypeOrmChangeRepository },
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
    ListProductsHandler,
    ListProductVersionsHandler,
    GetProductDraftHandler,
    CreateChangeHandler,
    CancelChangeHandler,
    GetChangeHandler,
    GetCascadeRunHandler,
    ListCascadeTasksHandler,
    EvaluateFormulaHandler,
  ],
  // Tests and operators drive the jobs directly.
  exports: [ProductReleases, CostCascades],
})
export class CatalogModule {}
