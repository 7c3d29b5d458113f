import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { PlanView } from './plan-views';

export class GetPlanQuery extends Query<PlanView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}
