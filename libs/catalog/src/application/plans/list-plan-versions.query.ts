import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { PlanVersionView } from './plan-views';

export class ListPlanVersionsQuery extends Query<Page<PlanVersionView>> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly filters: { statuses?: string[]; archivedReason?: string; includeUsageCount: boolean },
    readonly limit: unknown,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
