import { SubscriptionView } from './subscription.view';

export interface SubscriptionRow {
  id: string;
  customer_id: string;
  plan_id: string;
  plan_version_id: string;
  plan_version: number;
  status: 'active' | 'canceled';
  billing_cadence: string;
  plan_track_mode: string;
  version_change_strategy: string;
  current_period_start: Date;
  current_period_end: Date;
  created_at: Date;
  updated_at: Date;
  canceled_at: Date | null;
  pins: { product_id: string; product_version_id: string }[];
}

/**
 * The columns of a subscription read, its pins aggregated. The pins name the organization by the
 * statement's parameter ($1, as every statement using these columns binds it): Citus routes the
 * correlated lookup to the organization's shard only so, and would read every shard otherwise.
 */
export const SUBSCRIPTION_COLUMNS = `s.id, s.customer_id, s.plan_id, s.plan_version_id, v.version AS plan_version, s.status, s.billing_cadence, s.plan_track_mode,
  s.version_change_strategy, s.current_period_start, s.current_period_end, s.created_at, s.updated_at, s.canceled_at,
  coalesce((SELECT jsonb_agg(jsonb_build_object('product_id', p.product_id, 'product_version_id', p.product_version_id) ORDER BY p.product_id)
              FROM subscription_product_pins p
             WHERE p.organization_id = $1 AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id), '[]') AS pins`;

export const VERSION_JOIN = `JOIN plan_versions v ON v.organization_id = s.organization_id AND v.workspace_id = s.workspace_id AND v.id = s.plan_version_id`;

export function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    object: 'subscription',
    id: row.id,
    customer_id: row.customer_id,
    plan_id: row.plan_id,
    plan_version: { id: row.plan_version_id, version: row.plan_version },
    status: row.status,
    billing_cadence: row.billing_cadence,
    plan_track_mode: row.plan_track_mode,
    version_change_strategy: row.version_change_strategy,
    product_pins: row.pins,
    holds_pin: row.plan_track_mode === 'pinned' || row.pins.length > 0,
    current_period_start: row.current_period_start,
    current_period_end: row.current_period_end,
    created_at: row.created_at,
    updated_at: row.updated_at,
    canceled_at: row.canceled_at,
  };
}
