import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { PlanVersionView } from './plan-views';

export class GetPlanDraftQuery extends Query<PlanVersionView & { base_version: number | null; head_version: number | null }> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}
