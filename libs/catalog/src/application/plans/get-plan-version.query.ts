import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { PlanVersionView } from './plan-views';

export class GetPlanVersionQuery extends Query<PlanVersionView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
  ) {
    super();
  }
}
