import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface PublishImpactView {
  would_migrate: number;
  pinned: number;
  movers_by_strategy: { immediate: number; next_period: number };
}

/** Model §4.9: what a publish of this plan would move (no draft needed). */
export class GetPlanPublishImpactQuery extends Query<PublishImpactView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}
