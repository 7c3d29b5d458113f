import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { CostView } from './cost.view';

export class GetCostQuery extends Query<CostView> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
  ) {
    super();
  }
}
