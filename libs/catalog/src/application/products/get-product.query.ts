import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ProductView } from './product.views';

export class GetProductQuery extends Query<ProductView> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
  ) {
    super();
  }
}
