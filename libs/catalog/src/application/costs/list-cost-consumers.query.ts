import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';

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

export interface ConsumerView {
  product_id: string;
  product_version_id: string | null;
  version: number | null;
}
