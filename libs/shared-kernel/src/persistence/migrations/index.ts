import { MigrationClass } from '../migration-list';
import { PlatformFoundation1763800000000 } from './1763800000000-platform-foundation';
import { IdempotencyClaim1763800300000 } from './1763800300000-idempotency-claim';
import { IdempotencyConcurrentReplays1763800500000 } from './1763800500000-idempotency-concurrent-replays';
import { IdempotencyKeyScope1763801100000 } from './1763801100000-idempotency-key-scope';
import { RateLimitWindowsOnCoordinator1763807100000 } from './1763807100000-rate-limit-windows-on-coordinator';
import { Events1763808200000 } from './1763808200000-events';
import { IdempotencyCreatedAtBrin1763809100000 } from './1763809100000-idempotency-created-at-brin';
import { IdempotencyKeyCheckWithoutBoundedRegex1763809400000 } from './1763809400000-idempotency-key-check-without-bounded-regex';

/**
 * The platform's own tables and functions: the outbox, idempotency records, rate-limit windows, events.
 * A new migration of this context goes in this folder and is appended here; never edited after landing.
 */
export const platformMigrations: readonly MigrationClass[] = [
  PlatformFoundation1763800000000,
  IdempotencyClaim1763800300000,
  IdempotencyConcurrentReplays1763800500000,
  IdempotencyKeyScope1763801100000,
  RateLimitWindowsOnCoordinator1763807100000,
  Events1763808200000,
  IdempotencyCreatedAtBrin1763809100000,
  IdempotencyKeyCheckWithoutBoundedRegex1763809400000,
];
