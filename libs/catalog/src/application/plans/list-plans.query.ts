import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { PlanStatus, RawQuery } from '../../domain/plan-filters';
import { PlanView } from './plan-views';

export interface PlanListView extends Page<PlanView> {
  counts?: { status: Record<PlanStatus, number> };
}

/** `GET /v1/plans`: the raw query string, read by the list's own grammar (model §6). */
export class ListPlansQuery extends Query<PlanListView> {
  constructor(
    readonly actor: Actor,
    readonly query: RawQuery,
  ) {
    super();
  }
}
