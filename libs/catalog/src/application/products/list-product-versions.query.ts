import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { ProductVersionView } from './product.views';

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
