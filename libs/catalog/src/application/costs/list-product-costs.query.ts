import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { CostView } from './cost.view';

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
