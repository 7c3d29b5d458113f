import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { catalogNotFound } from '../../domain/catalog-errors';
import { PlanMemberships } from './plan-memberships';
import { PlanVersionView } from './plan-views';
import { GetPlanVersionQuery } from './get-plan-version.query';
import { planVersionView, planRow } from './plan-reads';
import { PlanVersionReads } from './plan-version-reads';

@QueryHandler(GetPlanVersionQuery)
export class GetPlanVersionHandler implements IQueryHandler<GetPlanVersionQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: PlanVersionReads,
    private readonly memberships: PlanMemberships,
  ) {}

  async execute({ actor, planId, version }: GetPlanVersionQuery): Promise<PlanVersionView> {
    await planRow(this.txHost, actor, planId);
    const row = await this.versions.findByNumber(actor, planId, version);
    if (!row) throw catalogNotFound('version', 'version');
    return planVersionView(row, (await this.memberships.of(actor, [row.id])).get(row.id) ?? []);
  }
}
