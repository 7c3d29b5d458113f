import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Actor, isUuid } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { PlanDetailFields, planDetailFields } from '../../domain/plan-details';
import { VersionRow } from '../version-views';
import { PlanMembershipView } from './plan-memberships';
import { planColumns, PlanRow, PlanVersionView } from './plan-views';
import { lifecycleView } from '../products/product-reads';

export type PlanVersionRow = VersionRow &
  PlanDetailFields & {
    plan_id: string;
    price_cadence_unit: string;
    rank: number | null;
    usage_count?: string;
  };

export function planVersionView(row: PlanVersionRow, products: PlanMembershipView[]): PlanVersionView {
  return {
    object: 'plan_version',
    ...lifecycleView(row),
    plan_id: row.plan_id,
    ...planDetailFields(row),
    price_cadence_unit: row.price_cadence_unit,
    ...(row.usage_count !== undefined ? { usage_count: Number(row.usage_count) } : {}),
    products,
  };
}

export async function planRow(
  txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  actor: Actor,
  planId: string,
): Promise<PlanRow> {
  const [row]: PlanRow[] = isUuid(planId)
    ? await txHost.tx.query(
        `SELECT ${planColumns('$1')} FROM plans p
          WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3 AND p.deleted_at IS NULL`,
        [actor.organizationId, actor.workspaceId, planId],
      )
    : [];
  if (!row) throw catalogNotFound(undefined, 'plan');
  return row;
}
