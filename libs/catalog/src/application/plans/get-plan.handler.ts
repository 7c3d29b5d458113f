import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PlanMemberships } from './plan-memberships';
import { planViews, PlanView } from './plan-views';
import { GetPlanQuery } from './get-plan.query';
import { planRow } from './plan-reads';

@QueryHandler(GetPlanQuery)
export class GetPlanHandler implements IQueryHandler<GetPlanQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly memberships: PlanMemberships,
  ) {}

  /** The working view (model §4.2): live fields, and the draft's content when a draft is open, else the head's. */
  async execute({ actor, planId }: GetPlanQuery): Promise<PlanView> {
    const [view] = await planViews(this.memberships, actor, [await planRow(this.txHost, actor, planId)]);
    return view;
  }
}
