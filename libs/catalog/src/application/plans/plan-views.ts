import { Actor } from '@app/shared-kernel';
import { PlanMembershipView, PlanMemberships } from './plan-memberships';
import { VersionRef, VersionLifecycleView } from '../version-views';
import { planDetailColumns, PlanDetailFields, planDetailFields } from '../../domain/plan-details';

/**
 * The plan object of the API — the working view of model §4.2 — built from plan rows in one
 * place, so that `GET /v1/plans/{id}` and every item of `GET /v1/plans` show exactly the same.
 */

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

/**
 * The working views of plan rows, in their order: the live fields, plus the working draft's
 * memberships if a draft is open, else the head's, each resolved as in the head. One batched
 * lookup for all the rows.
 */
export async function planViews(memberships: PlanMemberships, actor: Actor, rows: PlanRow[]): Promise<PlanView[]> {
  const versionIds = rows.flatMap((row) => [row.draft_version_id, row.head_version_id].filter((id): id is string => id !== null));
  const byVersion = await memberships.of(actor, versionIds, true);
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
