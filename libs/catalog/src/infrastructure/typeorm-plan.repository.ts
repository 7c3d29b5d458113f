import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, preparedQuery, SqlWrite, SharedErrors } from '@app/shared-kernel';
import { MembershipTerms, RefreshUnit } from '../domain/membership-terms';
import { Plan, PlanContent, PriceCadenceUnit, ResolvedMembership, Tracking } from '../domain/plan';
import { planDetailColumns, PlanDetailFields, planDetailsOf, planDetailValues } from '../domain/plan-details';
import { PlanRepository, TenantKey } from '../domain/repositories';
import { PlanGoLiveListener } from '../domain/subscriber-ports';
import { VersionRow } from '../application/version-views';
import { toVersionRecord, VERSION_COLUMNS, versionUpserts } from './version-rows';
import { CatalogEvents, ReadEvent } from '../application/catalog-events';
import { GetPlanVersionQuery } from '../application/plans/get-plan-version.query';
import { changeEvents, unreportedTransitions } from './version-events';

/** The event of a plan version entering a status; a new draft has none. */
const VERSION_EVENTS = {
  published: 'plan.version.published',
  scheduled: 'plan.version.scheduled',
  archived: 'plan.version.archived',
} as const;

interface PlanRow extends PlanDetailFields {
  id: string;
  tags: string[];
  status: Plan['snapshot']['status'];
  next_version_no: number;
  published_at: Date | null;
  archived_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type PlanVersionRow = VersionRow &
  PlanDetailFields & {
    price_cadence_unit: PriceCadenceUnit;
  };

const DETAIL_COLUMNS = planDetailColumns().join(', ');

export interface MembershipRow {
  plan_version_id: string;
  product_id: string;
  position: number;
  product_version_id: string | null;
  track_mode: 'latest' | 'pinned' | null;
  default_quantity: number;
  min_quantity: number;
  max_quantity: number | null;
  included_quantity: string | null;
  refresh_count: number | null;
  refresh_unit: RefreshUnit | null;
  rollover_enabled: boolean;
  rollover_expiry_periods: number | null;
  rollover_max: string | null;
  unit_limit: string | null;
}

/** The columns of plan_version_products as MembershipRow reads them (`m.` when given). */
export function membershipColumns(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}plan_version_id, ${a}product_id, ${a}position, ${a}product_version_id, ${a}track_mode, ${a}default_quantity, ${a}min_quantity,
    ${a}max_quantity, ${a}included_quantity::text AS included_quantity, ${a}refresh_count, ${a}refresh_unit, ${a}rollover_enabled,
    ${a}rollover_expiry_periods, ${a}rollover_max::text AS rollover_max, ${a}unit_limit::text AS unit_limit`;
}

export function termsOf(row: MembershipRow): MembershipTerms {
  return {
    minQuantity: row.min_quantity,
    defaultQuantity: row.default_quantity,
    maxQuantity: row.max_quantity,
    includedQuantity: row.included_quantity,
    refreshCount: row.refresh_count,
    refreshUnit: row.refresh_unit,
    rolloverEnabled: row.rollover_enabled,
    rolloverExpiryPeriods: row.rollover_expiry_periods,
    rolloverMax: row.rollover_max,
    unitLimit: row.unit_limit,
  };
}

@Injectable()
export class TypeOrmPlanRepository extends PlanRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly goLives: PlanGoLiveListener,
    private readonly events: CatalogEvents,
  ) {
    super();
  }

  async lock(tenant: TenantKey, planId: string): Promise<Plan | undefined> {
    if (!isUuid(planId)) return undefined;
    const params = [tenant.organizationId, tenant.workspaceId, planId];
    const [row] = await this.query<PlanRow>(
      `SELECT id, ${DETAIL_COLUMNS}, tags, status, next_version_no,
              published_at, archived_at, deleted_at, created_at, updated_at
         FROM plans WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND deleted_at IS NULL FOR UPDATE`,
      params,
    );
    if (!row) return undefined;
    const versions = await this.query<PlanVersionRow>(
      `SELECT ${VERSION_COLUMNS.join(', ')}, ${DETAIL_COLUMNS}, price_cadence_unit
         FROM plan_versions
        WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3
          AND (status <> 'archived' OR id IN (SELECT base_version_id FROM plan_versions
                WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3 AND status = 'draft'))`,
      params,
    );
    const memberships = await this.query<MembershipRow>(
      `SELECT ${membershipColumns()} FROM plan_version_products
        WHERE organization_id = $1 AND workspace_id = $2 AND plan_version_id = ANY($3::uuid[]) ORDER BY position`,
      [tenant.organizationId, tenant.workspaceId, versions.map((version) => version.id)],
    );
    const tracking = await this.query<{
      product_id: string;
      track_mode: 'latest' | 'pinned';
      pinned_product_version_id: string | null;
    }>(
      `SELECT product_id, track_mode, pinned_product_version_id FROM plan_product_tracking WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3`,
      params,
    );
    return Plan.restore({
      state: {
        organizationId: tenant.organizationId,
        workspaceId: tenant.workspaceId,
        id: row.id,
        details: planDetailsOf(row),
        status: row.status,
        publishedAt: row.published_at,
        archivedAt: row.archived_at,
        deletedAt: row.deleted_at,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      },
      nextVersionNo: row.next_version_no,
      versions: versions.map(toVersionRecord),
      contents: new Map(
        versions.map((version): [string, PlanContent] => [
          version.id,
          {
            priceCadenceUnit: version.price_cadence_unit,
            memberships: memberships
              .filter((membership) => membership.plan_version_id === version.id)
              .map((membership) => ({
                productId: membership.product_id,
                position: membership.position,
                terms: termsOf(membership),
              })),
          },
        ]),
      ),
      frozenDetails: new Map(
        versions.filter((version) => version.status !== 'draft').map((version) => [version.id, planDetailsOf(version)]),
      ),
      tracking: new Map(
        tracking.map((entry): [string, Tracking] => [
          entry.product_id,
          { trackMode: entry.track_mode, pinnedProductVersionId: entry.pinned_product_version_id },
        ]),
      ),
    });
  }

  async save(plan: Plan): Promise<void> {
    const s = plan.snapshot;
    const tenant = { organizationId: s.organizationId, workspaceId: s.workspaceId };
    const tenantValues = [s.organizationId, s.workspaceId];
    const writes = plan.pendingWrites;
    const d = s.details;
    const working = plan.workingContent;
    const steps: SqlWrite[] = [
      {
        text: `INSERT INTO plans (organization_id, workspace_id, id, ${DETAIL_COLUMNS}, tags, status, version, head_version_id,
                 draft_version_id, next_version_no, next_release_at, published_at, archived_at, created_at, updated_at, deleted_at, price_cadence_unit)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 CASE WHEN $18::timestamptz IS NOT NULL THEN GREATEST($18::timestamptz, $20::timestamptz) END, $19, $20,
                 GREATEST($21::timestamptz, $20::timestamptz), $22, $23)
               -- Updated and published never before creation, even when the clock stepped back
               -- (plans_updated_after_created): the proposed row and the stored one both meet the CHECK.
               ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET
                 ${planDetailColumns()
                   .map((column) => `${column} = EXCLUDED.${column}`)
                   .join(', ')}, tags = EXCLUDED.tags, status = EXCLUDED.status,
                 version = EXCLUDED.version, head_version_id = EXCLUDED.head_version_id, draft_version_id = EXCLUDED.draft_version_id,
                 next_version_no = EXCLUDED.next_version_no, next_release_at = EXCLUDED.next_release_at,
                 published_at = CASE WHEN EXCLUDED.published_at IS NOT NULL THEN GREATEST(EXCLUDED.published_at, plans.created_at) END,
                 archived_at = EXCLUDED.archived_at,
                 updated_at = GREATEST(EXCLUDED.updated_at, plans.created_at),
                 deleted_at = EXCLUDED.deleted_at, price_cadence_unit = EXCLUDED.price_cadence_unit
               WHERE $24::int IS NULL OR plans.version = $24
               RETURNING id`,
        values: [
          ...tenantValues,
          s.id,
          ...planDetailValues(d),
          d.tags,
          s.status,
          plan.version,
          plan.line.head?.id ?? null,
          plan.line.draft?.id ?? null,
          plan.line.nextVersionNo,
          plan.line.nextReleaseAt,
          s.publishedAt,
          s.archivedAt,
          s.createdAt,
          s.updatedAt,
          s.deletedAt,
          working.priceCadenceUnit,
          writes.expectedVersion ?? null,
        ],
      },
      ...versionUpserts('plan_versions', tenant, 'plan_id', s.id, writes.versions, (record) => {
        const details = plan.detailsOf(record.id);
        return {
          name: details.name,
          price_cadence_unit: (plan.contentOf(record.id) ?? working).priceCadenceUnit,
        };
      }),
    ];
    const resolved = new Map(writes.resolved.map((entry) => [entry.versionId, entry.memberships]));
    for (const { versionId, content, details } of writes.contents) {
      steps.push({
        text: `DELETE FROM plan_version_products WHERE organization_id = $1 AND workspace_id = $2 AND plan_version_id = $3`,
        values: [...tenantValues, versionId],
      });
      if (!content) continue;
      steps.push({
        text: `UPDATE plan_versions SET price_cadence_unit = $4,
                 ${planDetailColumns()
                   .map((column, index) => `${column} = $${5 + index}`)
                   .join(', ')}
               WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        values: [...tenantValues, versionId, content.priceCadenceUnit, ...planDetailValues(details)],
      });
      steps.push(...membershipsInsert(tenantValues, versionId, content, resolved.get(versionId)));
      resolved.delete(versionId);
    }
    for (const [versionId, memberships] of resolved) {
      for (const membership of memberships) {
        steps.push({
          text: `UPDATE plan_version_products SET product_version_id = $5, track_mode = $6
                  WHERE organization_id = $1 AND workspace_id = $2 AND plan_version_id = $3 AND product_id = $4`,
          values: [...tenantValues, versionId, membership.productId, membership.productVersionId, membership.trackMode],
        });
      }
    }
    for (const { productId, tracking } of writes.tracking) {
      steps.push(
        tracking
          ? {
              text: `INSERT INTO plan_product_tracking (organization_id, workspace_id, plan_id, product_id, track_mode, pinned_product_version_id)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (organization_id, workspace_id, plan_id, product_id) DO UPDATE SET track_mode = EXCLUDED.track_mode,
                       pinned_product_version_id = EXCLUDED.pinned_product_version_id`,
              values: [...tenantValues, s.id, productId, tracking.trackMode, tracking.pinnedProductVersionId],
            }
          : {
              text: `DELETE FROM plan_product_tracking WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3 AND product_id = $4`,
              values: [...tenantValues, s.id, productId],
            },
      );
    }
    const [planWrite, ...rest] = steps;
    // The version-checked write: a stale expected_version matches no row.
    if ((await this.query(planWrite.text, [...planWrite.values])).length === 0) {
      throw SharedErrors.CONFLICT.create('The plan changed since it was read.', {
        param: 'expected_version',
        details: { current_version: plan.version },
      });
    }
    for (const step of rest) await this.query(step.text, [...step.values]);
    // Whatever brought a version live (publish, release, cascade, republish), its subscribers move in this transaction.
    if (writes.wentLive.length > 0) await this.goLives.wentLive(tenant, s.id, writes.wentLive);
    // After the subscribers' moves: their locks are taken before the events hold the workspace's sequence.
    // A deleted plan's versions are no longer read (plan.deleted says it); the others, as their GET answers now.
    const transitions = unreportedTransitions(plan.line);
    await this.events.publish(tenant, [
      ...transitions.flatMap((row): ReadEvent[] =>
        row.status === 'draft' || s.deletedAt !== null
          ? []
          : [{ type: VERSION_EVENTS[row.status], read: (reader) => new GetPlanVersionQuery(reader, s.id, row.version) }],
      ),
      ...changeEvents(transitions),
    ]);
  }

  async versionExists(tenant: TenantKey, planId: string, versionId: string): Promise<boolean> {
    if (!isUuid(versionId)) return false;
    const rows = await this.query(
      `SELECT 1 FROM plan_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND plan_id = $4`,
      [tenant.organizationId, tenant.workspaceId, versionId, planId],
    );
    return rows.length > 0;
  }

  private query<Row = Record<string, unknown>>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}

function membershipsInsert(
  tenantValues: unknown[],
  versionId: string,
  content: PlanContent,
  resolved: ResolvedMembership[] | undefined,
): SqlWrite[] {
  if (content.memberships.length === 0) return [];
  const resolution = new Map((resolved ?? []).map((membership) => [membership.productId, membership]));
  const rows = content.memberships;
  const column = <T>(pick: (membership: PlanContent['memberships'][number]) => T) => rows.map(pick);
  return [
    {
      text: `INSERT INTO plan_version_products (organization_id, workspace_id, plan_version_id, product_id, position, product_version_id, track_mode,
               default_quantity, min_quantity, max_quantity, included_quantity, refresh_count, refresh_unit, rollover_enabled,
               rollover_expiry_periods, rollover_max, unit_limit)
             SELECT $1, $2, $3, * FROM unnest($4::uuid[], $5::int[], $6::uuid[], $7::text[], $8::int[], $9::int[], $10::int[], $11::numeric[],
               $12::int[], $13::text[], $14::boolean[], $15::int[], $16::numeric[], $17::numeric[])`,
      values: [
        ...tenantValues,
        versionId,
        column((membership) => membership.productId),
        column((membership) => membership.position),
        column((membership) => resolution.get(membership.productId)?.productVersionId ?? null),
        column((membership) => resolution.get(membership.productId)?.trackMode ?? null),
        column((membership) => membership.terms.defaultQuantity),
        column((membership) => membership.terms.minQuantity),
        column((membership) => membership.terms.maxQuantity),
        column((membership) => membership.terms.includedQuantity),
        column((membership) => membership.terms.refreshCount),
        column((membership) => membership.terms.refreshUnit),
        column((membership) => membership.terms.rolloverEnabled),
        column((membership) => membership.terms.rolloverExpiryPeriods),
        column((membership) => membership.terms.rolloverMax),
        column((membership) => membership.terms.unitLimit),
      ],
    },
  ];
}
