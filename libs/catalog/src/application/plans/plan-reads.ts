import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Actor, isUuid } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { planDetailColumns, PlanDetailFields, planDetailFields } from '../../domain/plan-details';
import { VERSION_COLUMNS, VersionRow } from '../../infrastructure/version-rows';
import { planColumns, PlanMembershipView, PlanRow, PlanVersionView } from './plan-views';
import { lifecycleView } from '../products/product-reads';

export type PlanVersionRow = VersionRow &
  PlanDetailFields & {
    plan_id: string;
    price_cadence_unit: string;
    rank: number | null;
    usage_count?: string;
  };

/** Its subqueries name the organization and workspace by the caller's $1 and $2: Citus routes a correlated one to one shard only so. */
export const PLAN_VERSION_SELECT = `
  SELECT ${VERSION_COLUMNS.map((column) => `v.${column}`).join(', ')}, v.plan_id, ${planDetailColumns('v').join(', ')},
         v.price_cadence_unit,
         CASE WHEN v.status = 'scheduled' THEN (SELECT count(*) FROM plan_versions q WHERE q.organization_id = $1
           AND q.workspace_id = $2 AND q.plan_id = v.plan_id AND q.status = 'scheduled' AND q.scheduled_for <= v.scheduled_for) END AS rank
    FROM plan_versions v`;

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
