import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Actor } from '@app/shared-kernel';
import { allowanceKind } from '../../domain/membership-terms';
import { membershipColumns, MembershipRow, termsOf } from '../../infrastructure/typeorm-plan.repository';
import { VersionRef, VersionLifecycleView } from '../version-views';
import { planDetailColumns, PlanDetailFields, planDetailFields } from '../../domain/plan-details';

/**
 * The plan object of the API — the working view of model §4.2 — built from plan rows in one
 * place, so that `GET /v1/plans/{id}` and every item of `GET /v1/plans` show exactly the same.
 */

export interface PlanMembershipView {
  product_id: string;
  product_version_id: string | null;
  product_version: number | null;
  product_track_mode: 'latest' | 'pinned';
  pinned_product_version_id: string | null;
  allowance_kind: 'REFRESHING' | 'POOL' | null;
  min_quantity: number;
  default_quantity: number;
  max_quantity: number | null;
  included_quantity: string | null;
  refresh_count: number | null;
  refresh_unit: string | null;
  rollover_enabled: boolean;
  rollover_expiry_periods: number | null;
  rollover_max: string | null;
  unit_limit: string | null;
}

export interface PlanView extends PlanDetailFields {
  object: 'plan';
  id: string;
  tags: string[];
  price_cadence_unit: string;
  status: string;
  version: number;
  live_version: VersionRef | null;
  draft_version: VersionRef | null;
  has_scheduled_version: boolean;
  next_release_at: Date | null;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  products: PlanMembershipView[];
}

export interface PlanRow extends PlanDetailFields {
  id: string;
  tags: string[];
  price_cadence_unit: string;
  status: string;
  version: number;
  head_version_id: string | null;
  draft_version_id: string | null;
  draft_version: number | null;
  next_release_at: Date | null;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns of a PlanRow, read from `plans p` (or a derived table exposing the plans columns as
 * `p`). The draft's number is a correlated lookup: wrapped around a limited page it runs once per
 * row shown, never once per row sorted. It names the organization by its parameter (`organization`,
 * e.g. `$1`) rather than by the row's column: Citus routes it to the organization's shard only so
 * (it cannot plan a correlated subquery over a derived table otherwise).
 */
export const planColumns = (
  organization: string,
) => `p.id, ${planDetailColumns('p').join(', ')}, p.tags, p.price_cadence_unit, p.status, p.version, p.head_version_id, p.draft_version_id,
  (SELECT d.version FROM plan_versions d WHERE d.organization_id = ${organization} AND d.workspace_id = p.workspace_id
      AND d.id = p.draft_version_id) AS draft_version,
  p.next_release_at, p.published_at, p.archived_at, p.created_at, p.updated_at`;

type MembershipReadRow = MembershipRow & {
  product_version: number | null;
  live_track_mode: 'latest' | 'pinned' | null;
  pinned_product_version_id: string | null;
};

/**
 * Memberships of plan versions (of one plan or many), with the product version each resolved to
 * (and its number) and the plan's live tracking row of that product.
 */
export async function memberships(
  txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  actor: Actor,
  versionIds: string[],
  /** The plan's working view shows each membership's live track mode; a version, the mode it resolved with. */
  live = false,
): Promise<Map<string, PlanMembershipView[]>> {
  const byVersion = new Map<string, PlanMembershipView[]>();
  if (versionIds.length === 0) return byVersion;
  const rows: MembershipReadRow[] = await txHost.tx.query(
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

/**
 * The working views of plan rows, in their order: the live fields, plus the working draft's
 * memberships if a draft is open, else the head's, each resolved as in the head. One batched
 * lookup for all the rows.
 */
export async function planViews(
  txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  actor: Actor,
  rows: PlanRow[],
): Promise<PlanView[]> {
  const versionIds = rows.flatMap((row) => [row.draft_version_id, row.head_version_id].filter((id): id is string => id !== null));
  const byVersion = await memberships(txHost, actor, versionIds, true);
  return rows.map((row) => planView(row, byVersion));
}

function planView(row: PlanRow, byVersion: Map<string, PlanMembershipView[]>): PlanView {
  const working = row.draft_version_id ?? row.head_version_id;
  const head = new Map(
    (row.head_version_id ? byVersion.get(row.head_version_id) : undefined)?.map((membership) => [
      membership.product_id,
      membership,
    ]) ?? [],
  );
  const products = (working ? (byVersion.get(working) ?? []) : []).map((membership) => ({
    ...membership,
    product_version_id: head.get(membership.product_id)?.product_version_id ?? null,
    product_version: head.get(membership.product_id)?.product_version ?? null,
  }));
  return {
    object: 'plan',
    id: row.id,
    ...planDetailFields(row),
    tags: row.tags,
    price_cadence_unit: row.price_cadence_unit,
    status: row.status,
    version: row.version,
    live_version: row.head_version_id ? { id: row.head_version_id, version: row.version } : null,
    draft_version: row.draft_version_id ? { id: row.draft_version_id, version: row.draft_version! } : null,
    has_scheduled_version: row.next_release_at !== null,
    next_release_at: row.next_release_at,
    published_at: row.published_at,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    products,
  };
}

export interface PlanVersionView extends VersionLifecycleView, PlanDetailFields {
  object: 'plan_version';
  plan_id: string;
  price_cadence_unit: string;
  usage_count?: number;
  products: PlanMembershipView[];
}

export const VERSION_STATUSES = ['draft', 'scheduled', 'published', 'archived'] as const;

export const ARCHIVED_REASONS = ['canceled', 'discarded', 'errored', 'superseded'] as const;
