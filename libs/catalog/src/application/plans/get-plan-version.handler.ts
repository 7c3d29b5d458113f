import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { catalogNotFound } from '../../domain/catalog-errors';
import { memberships, PlanVersionView } from './plan-views';
import { GetPlanVersionQuery } from './get-plan-version.query';
import { PlanVersionRow, PLAN_VERSION_SELECT, planVersionView, planRow } from './plan-reads';

@QueryHandler(GetPlanVersionQuery)
export class GetPlanVersionHandler implements IQueryHandler<GetPlanVersionQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, planId, version }: GetPlanVersionQuery): Promise<PlanVersionView> {
    await planRow(this.txHost, actor, planId);
    const [row]: PlanVersionRow[] = await this.txHost.tx.query(
      `${PLAN_VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.version = $4`,
      [actor.organizationId, actor.workspaceId, planId, version],
    );
    if (!row) throw catalogNotFound('version', 'version');
    return planVersionView(row, (await memberships(this.txHost, actor, [row.id])).get(row.id) ?? []);
  }
}
