import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { Actor } from '@app/shared-kernel';
import { PlanMembershipView, PlanMemberships } from '../application/plans/plan-memberships';
import { allowanceKind } from '../domain/membership-terms';
import { membershipColumns, MembershipRow, termsOf } from './typeorm-plan.repository';

type MembershipReadRow = MembershipRow & {
  product_version: number | null;
  live_track_mode: 'latest' | 'pinned' | null;
  pinned_product_version_id: string | null;
};

@Injectable()
export class TypeOrmPlanMemberships extends PlanMemberships {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async of(actor: Actor, versionIds: string[], live = false): Promise<Map<string, PlanMembershipView[]>> {
    const byVersion = new Map<string, PlanMembershipView[]>();
    if (versionIds.length === 0) return byVersion;
    const rows: MembershipReadRow[] = await this.txHost.tx.query(
      `SELECT ${membershipColumns('m')},
              pv.version AS product_version, t.track_mode AS live_track_mode, t.pinned_product_version_id
         FROM plan_version_products m
         JOIN plan_versions v ON v.organization_id = m.organization_id AND v.workspace_id = m.workspace_id AND v.id = m.plan_version_id
         LEFT JOIN product_versions pv ON pv.organization_id = m.organization_id AND pv.workspace_id = m.workspace_id AND pv.id = m.product_version_id
         LEFT JOIN plan_product_tracking t ON t.organization_id = m.organization_id AND t.workspace_id = m.workspace_id AND t.plan_id = v.plan_id
          AND t.product_id = m.product_id
        WHERE m.organization_id = $1 AND m.workspace_id = $2 AND m.plan_version_id = ANY($3::uuid[]) ORDER BY m.position`,
      [actor.organizationId, actor.workspaceId, [...new Set(versionIds)]],
    );
    for (const row of rows) {
      const terms = termsOf(row);
      const list = byVersion.get(row.plan_version_id) ?? [];
      list.push({
        product_id: row.product_id,
        product_version_id: row.product_version_id,
        product_version: row.product_version,
        product_track_mode: (live ? row.live_track_mode : (row.track_mode ?? row.live_track_mode)) ?? 'latest',
        pinned_product_version_id: row.pinned_product_version_id,
        allowance_kind: allowanceKind(terms),
        min_quantity: terms.minQuantity,
        default_quantity: terms.defaultQuantity,
        max_quantity: terms.maxQuantity,
        included_quantity: terms.includedQuantity,
        refresh_count: terms.refreshCount,
        refresh_unit: terms.refreshUnit,
        rollover_enabled: terms.rolloverEnabled,
        rollover_expiry_periods: terms.rolloverExpiryPeriods,
        rollover_max: terms.rolloverMax,
        unit_limit: terms.unitLimit,
      });
      byVersion.set(row.plan_version_id, list);
    }
    return byVersion;
  }
}
