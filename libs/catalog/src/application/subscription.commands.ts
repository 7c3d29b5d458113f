import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import type { OutcomeStatus, SkipReason } from '../domain/plan-migration';

/** A subscription as the API sends it; undefined: not sent (defaults apply). */
export interface SubscriptionInput {
  customerId: string;
  planId: string;
  planVersion?: number;
  billingCadence?: string;
  planTrackMode?: string;
  versionChangeStrategy?: string;
  productPins?: { productId: string; productVersionId: string }[];
  currentPeriodStart?: Date;
}

export class CreateSubscriptionCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: SubscriptionInput,
  ) {
    super();
  }
}

export class CancelSubscriptionCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly subscriptionId: string,
  ) {
    super();
  }
}

export interface MigrateInput {
  mode: unknown;
  targetVersion: unknown;
  prorationStrategy?: unknown;
  scheduledAt?: Date;
}

export interface MigrationResultView {
  mode: 'PREVIEW' | 'IMMEDIATE' | 'SCHEDULED';
  target_version: number;
  affected_subscriptions: number;
  scheduled_at: Date | null;
  migration_id: string | null;
  skipped_by_reason: Record<SkipReason, number>;
}

export class MigratePlanCommand extends Command<MigrationResultView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly input: MigrateInput,
  ) {
    super();
  }
}

export class CancelMigrationCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly migrationId: string,
  ) {
    super();
  }
}

export interface VersionRefView {
  id: string;
  version: number;
}

export interface SubscriptionView {
  object: 'subscription';
  id: string;
  customer_id: string;
  plan_id: string;
  plan_version: VersionRefView;
  status: 'active' | 'canceled';
  billing_cadence: string;
  plan_track_mode: string;
  version_change_strategy: string;
  product_pins: { product_id: string; product_version_id: string }[];
  holds_pin: boolean;
  current_period_start: Date;
  current_period_end: Date;
  created_at: Date;
  updated_at: Date;
  canceled_at: Date | null;
}

export class GetSubscriptionQuery extends Query<SubscriptionView> {
  constructor(
    readonly actor: Actor,
    readonly subscriptionId: string,
  ) {
    super();
  }
}

/** Several subscriptions as their GET answers each (no route: a batch's events read them in one query). */
export class GetSubscriptionsQuery extends Query<SubscriptionView[]> {
  constructor(
    readonly actor: Actor,
    readonly subscriptionIds: readonly string[],
  ) {
    super();
  }
}

export interface SubscriptionFilters {
  planId?: string;
  customerId?: string;
  status?: 'active' | 'canceled';
}

export class ListSubscriptionsQuery extends Query<Page<SubscriptionView>> {
  constructor(
    readonly actor: Actor,
    readonly filters: SubscriptionFilters,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

export interface MigrationView {
  object: 'migration';
  id: string;
  plan_id: string;
  trigger: 'manual' | 'publish';
  mode: 'IMMEDIATE' | 'SCHEDULED';
  target_version: VersionRefView;
  proration_strategy: string;
  scheduled_at: Date | null;
  status: string;
  counts: Record<'total' | OutcomeStatus, number>;
  skipped_by_reason: Record<SkipReason, number>;
  created_by: { type: string; id: string };
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  canceled_at: Date | null;
}

export class GetMigrationQuery extends Query<MigrationView> {
  constructor(
    readonly actor: Actor,
    readonly migrationId: string,
  ) {
    super();
  }
}

export interface MigrationOutcomeView {
  object: 'migration_outcome';
  migration_id: string;
  subscription_id: string;
  status: OutcomeStatus;
  reason: string | null;
  from_version: VersionRefView;
  to_version: VersionRefView;
  effective_at: Date | null;
  proration_strategy: string;
  processed_at: Date | null;
}

export class ListMigrationOutcomesQuery extends Query<Page<MigrationOutcomeView>> {
  constructor(
    readonly actor: Actor,
    readonly migrationId: string,
    readonly status: OutcomeStatus | undefined,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
