import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { ProductView } from './product.views';

export class ListProductsQuery extends Query<Page<ProductView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
