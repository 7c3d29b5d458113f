import { IntegrationEvent, newId, SharedErrors } from '@app/shared-kernel';

import { PriceCadenceUnit } from './plan';

export type PlanTrackMode = 'pinned' | 'latest';
export type VersionChangeStrategy = 'immediate' | 'next_period';
export const PLAN_TRACK_MODES: readonly PlanTrackMode[] = ['pinned', 'latest'];
export const VERSION_CHANGE_STRATEGIES: readonly VersionChangeStrategy[] = ['immediate', 'next_period'];

export interface ProductPin {
  productId: string;
  productVersionId: string;
}

export interface SubscriptionState {
  organizationId: string;
  workspaceId: string;
  id: string;
  customerId: string;
  planId: string;
  planVersionId: string;
  status: 'active' | 'canceled';
  billingCadence: PriceCadenceUnit;
  planTrackMode: PlanTrackMode;
  versionChangeStrategy: VersionChangeStrategy;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  productPins: ProductPin[];
  createdAt: Date;
  updatedAt: Date;
  canceledAt: Date | null;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * `start` plus `count` cadence units on the UTC calendar; a day past the target month's end
 * clamps to its last day (Jan 31 + 1 month = Feb 28), as PostgreSQL's interval arithmetic does,
 * so the periods computed here and in SQL (catalog_period_end_after) agree.
 */
export function addCadence(start: Date, cadence: PriceCadenceUnit, count = 1): Date {
  if (cadence === 'week') return new Date(start.getTime() + count * 7 * 86_400_000);
  const months = cadence === 'month' ? count : count * 12;
  const total = start.getUTCFullYear() * 12 + start.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(start.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()),
  );
}

/**
 * A minimal subscription (model §4.8): a customer billed on one live version of a plan, at that
 * version's cadence. It holds a pin when it is pinned or pins any product; otherwise it tracks
 * the plan's latest version and moves automatically when one goes live.
 */
export class Subscription {
  private constructor(private state: SubscriptionState) {}

  static restore(state: SubscriptionState): Subscription {
    return new Subscription({ ...state, productPins: [...state.productPins] });
  }

  /** Starts on a version that went live; the current period is one cadence unit from its start. */
  static start(input: {
    organizationId: string;
    workspaceId: string;
    customerId: string;
    planId: string;
    planVersionId: string;
    billingCadence: PriceCadenceUnit;
    planTrackMode: PlanTrackMode;
    versionChangeStrategy: VersionChangeStrategy;
    productPins: ProductPin[];
    currentPeriodStart: Date;
    now: Date;
  }): Subscription {
    return new Subscription({
      organizationId: input.organizationId,
      workspaceId: input.workspaceId,
      id: newId(),
      customerId: input.customerId,
      planId: input.planId,
      planVersionId: input.planVersionId,
      status: 'active',
      billingCadence: input.billingCadence,
      planTrackMode: input.planTrackMode,
      versionChangeStrategy: input.versionChangeStrategy,
      currentPeriodStart: input.currentPeriodStart,
      currentPeriodEnd: addCadence(input.currentPeriodStart, input.billingCadence),
      productPins: input.productPins,
      createdAt: input.now,
      updatedAt: input.now,
      canceledAt: null,
    });
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<SubscriptionState> {
    return this.state;
  }

  /** Whether an automatic move passes it by: pinned, or holding any product pin. */
  get holdsPin(): boolean {
    return this.state.planTrackMode === 'pinned' || this.state.productPins.length > 0;
  }

  /** Terminal: a canceled subscription is never moved again (pending outcomes end NOT_ACTIVE). */
  cancel(now: Date): void {
    if (this.state.status !== 'active') {
      throw SharedErrors.INVALID_STATUS_TRANSITION.create(`A subscription that is ${this.state.status} cannot become canceled.`, {
        details: { from: this.state.status, to: 'canceled', allowed: [] },
      });
    }
    this.state = { ...this.state, status: 'canceled', canceledAt: now, updatedAt: now };
  }
}

/** Billing's signal that a subscription bills on another plan version from `effectiveAt` on. */
@IntegrationEvent('subscription.version_changed')
export class SubscriptionVersionChanged {
  constructor(
    readonly organizationId: string,
    readonly workspaceId: string,
    readonly subscriptionId: string,
    readonly customerId: string,
    readonly planId: string,
    readonly migrationId: string,
    readonly fromVersionId: string,
    readonly fromVersion: number,
    readonly toVersionId: string,
    readonly toVersion: number,
    readonly effectiveAt: string,
    readonly prorationStrategy: string,
  ) {}
}
