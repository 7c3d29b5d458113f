import { PriceCadenceUnit } from './plan';
import { PlanMigration, ProrationStrategy, SkipReason } from './plan-migration';
import type { TenantKey } from './repositories';
import { ProductPin, Subscription } from './subscription';
import { VersionRecord } from './version-line';

/** A plan version that went live (published or superseded since): what subscribers can be on. */
export interface LiveVersion {
  id: string;
  version: number;
  priceCadenceUnit: PriceCadenceUnit;
}

export abstract class SubscriptionRepository {
  /** Loads and row-locks a subscription with its product pins. */
  abstract lock(tenant: TenantKey, subscriptionId: string): Promise<Subscription | undefined>;
  abstract save(subscription: Subscription): Promise<void>;
  /** A version of the plan by number, if it ever went live. */
  abstract liveVersion(tenant: TenantKey, planId: string, version: number | 'head'): Promise<LiveVersion | undefined>;
  /** The pins that name a product outside the version, or a product version that never went live (first one), else undefined. */
  abstract invalidPin(
    tenant: TenantKey,
    planVersionId: string,
    pins: ProductPin[],
  ): Promise<{ pin: ProductPin; reason: string } | undefined>;
}

/** Counts of a migration's scope: every outcome it makes, and the skips predicted among them. */
export interface MigrationScope {
  affected: number;
  skippedByReason: Record<SkipReason, number>;
}

/** A subscription a batch moved: what billing is told (outbox `subscription.version_changed`). */
export interface MovedSubscription {
  subscriptionId: string;
  customerId: string;
  fromVersionId: string;
  fromVersion: number;
  effectiveAt: Date;
  prorationStrategy: ProrationStrategy;
}

/** Where a run's batches have got to: settled batches are behind it, so the next one reads no settled entry. */
export interface BatchPosition {
  effectiveAt: Date;
  subscriptionId: string;
}

export interface MigrationTarget {
  id: string;
  version: number;
  priceCadenceUnit: PriceCadenceUnit;
}

/**
 * Migrations and their outcomes. Outcomes are written set-based: one statement builds every
 * outcome of a migration, one statement settles a batch (its subscriptions locked in id order).
 */
export abstract class PlanMigrationRepository {
  abstract lock(tenant: TenantKey, migrationId: string): Promise<PlanMigration | undefined>;
  abstract save(migration: PlanMigration): Promise<void>;
  /** The automatic migration made when this version went live, if it was made. */
  abstract publishMigrationOf(tenant: TenantKey, versionId: string): Promise<string | undefined>;
  /** What a manual migration to `target` covers now: the plan's ACTIVE subscriptions not on it, pinned ones included. */
  abstract scope(tenant: TenantKey, planId: string, target: MigrationTarget): Promise<MigrationScope>;
  /** One pending outcome per subscription in scope, effective at the migration's instant; returns how many. */
  abstract buildOutcomes(migration: PlanMigration, target: MigrationTarget): Promise<number>;
  /**
   * A version went live at `at`: one pending outcome per ACTIVE subscription tracking latest,
   * effective at `at` (immediate) or at the end of the period running at `at` (next_period).
   */
  abstract buildPublishOutcomes(migration: PlanMigration, at: Date): Promise<number>;
  /** Whether any ACTIVE subscription of the plan tracks latest (and pins no product). */
  abstract hasLatestTrackers(tenant: TenantKey, planId: string): Promise<boolean>;
  /** Closes the plan's pending outcomes of older go-lives as skipped SUPERSEDED; returns the migrations touched. */
  abstract supersedePending(tenant: TenantKey, planId: string, now: Date): Promise<string[]>;
  /**
   * Settles up to `limit` due pending outcomes of the migration after `after` (in effective_at,
   * subscription order); returns how many, who moved, and the position reached.
   */
  abstract settleBatch(
    tenant: TenantKey,
    migrationId: string,
    now: Date,
    limit: number,
    after?: BatchPosition,
  ): Promise<{ settled: number; moved: MovedSubscription[]; target: MigrationTarget & { planId: string }; last: BatchPosition }>;
  /** The earliest effective_at among pending outcomes, or null; a running migration with none left completes. */
  abstract completeOrNextDue(tenant: TenantKey, migrationId: string, now: Date): Promise<Date | null>;
  /** Settles the first due pending outcome after `after` as failed with `reason` (its move was refused). */
  abstract failFirstDue(
    tenant: TenantKey,
    migrationId: string,
    now: Date,
    reason: string,
    after?: BatchPosition,
  ): Promise<{ settled: number; last: BatchPosition }>;
  /**
   * Migrations left behind by their jobs, by the database's clock: scheduled ones a minute past
   * their time, and running ones started a minute ago with an outcome a minute overdue or none pending.
   */
  abstract overdue(limit: number): Promise<Array<TenantKey & { id: string; status: 'scheduled' | 'running' }>>;
}

/**
 * Told, inside the saving transaction, about every plan version that went live (publish now, a
 * fired release, a cascade, a bulk republish): the seam through which subscribers that track
 * the latest version move automatically (model §4.8).
 */
export abstract class PlanGoLiveListener {
  abstract wentLive(tenant: TenantKey, planId: string, versions: readonly VersionRecord[]): Promise<void>;
}
