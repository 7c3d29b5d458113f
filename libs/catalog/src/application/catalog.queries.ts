import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import {
  CascadeRunView,
  CascadeTaskView,
  ChangeView,
  ConsumerView,
  CostView,
  ProductDraftView,
  ProductVersionView,
  ProductView,
} from './catalog.views';

export class GetCostQuery extends Query<CostView> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
  ) {
    super();
  }
}

export class ListCostsQuery extends Query<Page<CostView>> {
  constructor(
    readonly actor: Actor,
    readonly scope: 'ORG' | 'PRODUCT' | undefined,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export class ListCostConsumersQuery extends Query<Page<ConsumerView>> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export type ProductCostsView = { view: 'default' | 'draft' | 'head' } | { productVersionId: string };

export class ListProductCostsQuery extends Query<Page<CostView>> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
    readonly view: ProductCostsView,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export class GetProductQuery extends Query<ProductView> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
  ) {
    super();
  }
}

export class ListProductsQuery extends Query<Page<ProductView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export class ListProductVersionsQuery extends Query<Page<ProductVersionView>> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

/** One version as `GET /v1/products/{id}/versions` lists it (no route of its own: its events' object). */
export class GetProductVersionQuery extends Query<ProductVersionView> {
  constructor(
    readonly actor: Actor,
    readonly versionId: string,
  ) {
    super();
  }
}

export class GetProductDraftQuery extends Query<ProductDraftView> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
  ) {
    super();
  }
}

export class GetChangeQuery extends Query<ChangeView> {
  constructor(
    readonly actor: Actor,
    readonly changeId: string,
  ) {
    super();
  }
}

export class GetCascadeRunQuery extends Query<CascadeRunView> {
  constructor(
    readonly actor: Actor,
    readonly runId: string,
  ) {
    super();
  }
}

export class ListCascadeTasksQuery extends Query<Page<CascadeTaskView>> {
  constructor(
    readonly actor: Actor,
    readonly runId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
