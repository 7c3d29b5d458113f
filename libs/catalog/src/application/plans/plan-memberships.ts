import { Actor } from '@app/shared-kernel';

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

/**
 * Memberships of plan versions (of one plan or many), with the product version each resolved to
 * (and its number) and the plan's live tracking row of that product. A port (also the DI token);
 * the module binds the adapter (infrastructure/typeorm-plan-memberships.reads.ts).
 */
export abstract class PlanMemberships {
  /**
   * Each version's memberships in their order, by version id (a version without any is absent).
   * `live`: the plan's working view shows each membership's live track mode; a version, the mode it resolved with.
   */
  abstract of(actor: Actor, versionIds: string[], live?: boolean): Promise<Map<string, PlanMembershipView[]>>;
}
