import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { PriceCadenceUnit } from '../domain/plan';
import type { TenantKey } from '../domain/repositories';
import { LiveVersion, SubscriptionRepository } from '../domain/subscriber-ports';
import { PlanTrackMode, ProductPin, Subscription, SubscriptionState, VersionChangeStrategy } from '../domain/subscription';

interface SubscriptionRow {
  id: string;
  customer_id: string;
  plan_id: string;
  plan_version_id: string;
  status: 'active' | 'canceled';
  billing_cadence: PriceCadenceUnit;
  plan_track_mode: PlanTrackMode;
  version_change_strategy: VersionChangeStrategy;
  current_period_start: Date;
  current_period_end: Date;
  created_at: Date;
  updated_at: Date;
  canceled_at: Date | null;
  pins: { product_id: string; product_version_id: string }[];
}

function toSubscription(tenant: TenantKey, row: SubscriptionRow): Subscription {
  return Subscription.restore({
    organizationId: tenant.organizationId,
    workspaceId: tenant.workspaceId,
    id: row.id,
    customerId: row.customer_id,
    planId: row.plan_id,
    planVersionId: row.plan_version_id,
    status: row.status,
    billingCadence: row.billing_cadence,
    planTrackMode: row.plan_track_mode,
    versionChangeStrategy: row.version_change_strategy,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    productPins: row.pins.map((pin) => ({ productId: pin.product_id, productVersionId: pin.product_version_id })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    canceledAt: row.canceled_at,
  });
}

function toRowValues(s: Readonly<SubscriptionState>): unknown[] {
  return [
    s.organizationId,
    s.workspaceId,
    s.id,
    s.customerId,
    s.planId,
    s.planVersionId,
    s.status,
    s.billingCadence,
    s.planTrackMode,
    s.versionChangeStrategy,
    s.currentPeriodStart,
    s.currentPeriodEnd,
    s.createdAt,
    s.updatedAt,
    s.canceledAt,
  ];
}

@Injectable()
export class TypeOrmSubscriptionRepository extends SubscriptionRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  /** The pins name the organization by its parameter: Citus routes (and lets lock) a correlated lookup only so. */
  async lock(tenant: TenantKey, subscriptionId: string): Promise<Subscription | undefined> {
    if (!isUuid(subscriptionId)) return undefined;
    const [row] = await this.query<SubscriptionRow>(
      `SELECT s.id, s.customer_id, s.plan_id, s.plan_version_id, s.status, s.billing_cadence, s.plan_track_mode, s.version_change_strategy,
              s.current_period_start, s.current_period_end, s.created_at, s.updated_at, s.canceled_at,
              coalesce((SELECT jsonb_agg(jsonb_build_object('product_id', p.product_id, 'product_version_id', p.product_version_id) ORDER BY p.product_id)
                          FROM subscription_product_pins p
                         WHERE p.organization_id = $1 AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id), '[]') AS pins
         FROM subscriptions s WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.id = $3 FOR UPDATE OF s`,
      [tenant.organizationId, tenant.workspaceId, subscriptionId],
    );
    return row && toSubscription(tenant, row);
  }

  /** Pins are written with a new subscription only: they never change afterwards. */
  async save(subscription: Subscription): Promise<void> {
    const s = subscription.snapshot;
    const [inserted] = await this.query<{ inserted: boolean }>(
      `INSERT INTO subscriptions (organization_id, workspace_id, id, customer_id, plan_id, plan_version_id, status, billing_cadence, plan_track_mode,
         version_change_strategy, current_period_start, current_period_end, created_at, updated_at, canceled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET plan_version_id = EXCLUDED.plan_version_id, status = EXCLUDED.status,
         updated_at = EXCLUDED.updated_at, canceled_at = EXCLUDED.canceled_at
       RETURNING (xmax = 0) AS inserted`,
      toRowValues(s),
    );
    if (inserted.inserted && s.productPins.length > 0) {
      await this.query(
        `INSERT INTO subscription_product_pins (organization_id, workspace_id, subscription_id, product_id, product_version_id)
         SELECT $1, $2, $3, * FROM unnest($4::uuid[], $5::uuid[])`,
        [
          s.organizationId,
          s.workspaceId,
          s.id,
          s.productPins.map((pin) => pin.productId),
          s.productPins.map((pin) => pin.productVersionId),
        ],
      );
    }
  }

  async liveVersion(tenant: TenantKey, planId: string, version: number | 'head'): Promise<LiveVersion | undefined> {
    if (!isUuid(planId)) return undefined;
    const [row] = await this.query<{ id: string; version: number; price_cadence_unit: PriceCadenceUnit }>(
      `SELECT id, version, price_cadence_unit FROM plan_versions
        WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3 AND effective_from IS NOT NULL
          AND (CASE WHEN $4::int IS NULL THEN status = 'published' ELSE version = $4 END)`,
      [tenant.organizationId, tenant.workspaceId, planId, version === 'head' ? null : version],
    );
    return row && { id: row.id, version: row.version, priceCadenceUnit: row.price_cadence_unit };
  }

  async invalidPin(
    tenant: TenantKey,
    planVersionId: string,
    pins: ProductPin[],
  ): Promise<{ pin: ProductPin; reason: string } | undefined> {
    if (pins.length === 0) return undefined;
    const rows = await this.query<{ product_id: string; on_version: boolean; went_live: boolean }>(
      `SELECT pin.product_id,
              EXISTS (SELECT 1 FROM plan_version_products m WHERE m.organization_id = $1 AND m.workspace_id = $2 AND m.plan_version_id = $3
                         AND m.product_id = pin.product_id) AS on_version,
              EXISTS (SELECT 1 FROM product_versions v WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.id = pin.product_version_id
                         AND v.product_id = pin.product_id AND v.effective_from IS NOT NULL) AS went_live
         FROM unnest($4::uuid[], $5::uuid[]) AS pin (product_id, product_version_id)`,
      [
        tenant.organizationId,
        tenant.workspaceId,
        planVersionId,
        pins.map((pin) => pin.productId),
        pins.map((pin) => pin.productVersionId),
      ],
    );
    for (const [index, row] of rows.entries()) {
      if (!row.on_version) return { pin: pins[index], reason: 'The pinned product is not on that plan version.' };
      if (!row.went_live)
        return { pin: pins[index], reason: 'The pinned product version is not a version of that product that went live.' };
    }
    return undefined;
  }

  private query<Row = Record<string, unknown>>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}
