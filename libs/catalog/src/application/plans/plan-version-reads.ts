import { Actor } from '@app/shared-kernel';
import { PlanVersionRow } from './plan-reads';

/** Which of a plan's versions a list shows. */
export interface PlanVersionFilters {
  statuses: string[];
  archivedReason: string | null;
  /** Whether each row counts its referrers (subscriptions on it, changes naming it) as `usage_count`. */
  includeUsageCount: boolean;
}

/**
 * The read side of plan versions (GET a version, a plan's versions, its staged draft), in the
 * request's transaction when there is one: each row with its queue rank (a scheduled version).
 * Memberships are read apart (PlanMemberships). A port (also the DI token); the module binds the
 * adapter (infrastructure/typeorm-plan-version.reads.ts).
 */
export abstract class PlanVersionReads {
  /** The plan's version numbered `version`; undefined when there is none. */
  abstract findByNumber(actor: Actor, planId: string, version: number): Promise<PlanVersionRow | undefined>;

  /** Up to `limit` versions of the plan, newest first, below `after` (a position `[version]`, undefined: from the newest). */
  abstract list(
    actor: Actor,
    planId: string,
    filters: PlanVersionFilters,
    after: unknown[] | undefined,
    limit: number,
  ): Promise<PlanVersionRow[]>;

  /** The draft version and its base, those that exist. */
  abstract draftWithBase(actor: Actor, draftVersionId: string): Promise<PlanVersionRow[]>;
}
