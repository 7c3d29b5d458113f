import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ProductVersionView } from './product.views';

/** One version as `GET /v1/products/{id}/versions` lists it (no route of its own: its events' object). */
export class GetProductVersionQuery extends Query<ProductVersionView> {
  constructor(
    readonly actor: Actor,
    readonly versionId: string,
  ) {
    super();
  }
}
