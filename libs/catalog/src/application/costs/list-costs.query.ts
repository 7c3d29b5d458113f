import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { CostView } from './cost.view';

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
