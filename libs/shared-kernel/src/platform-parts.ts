/**
 * The background parts of the platform a host opts into (`PlatformModule.forRoot({ parts })`).
 * Without any, a host can still write through every context (commands, queries, events, outbox
 * rows, jobs sent to the queue); what it leaves out runs on the hosts that opt in (apps/api opts
 * into all of them).
 *
 * - `job-workers`: this process runs the job queue's workers and its recurring (cron) jobs and
 *   supervises stalled jobs. Without it the queue only accepts jobs.
 * - `outbox-relay`: this process delivers committed outbox events to their
 *   `@HandlesIntegrationEvent` handlers. Implies `notifications` (the relay is woken by NOTIFY).
 * - `retention`: the hourly purges of events (30 days) and idempotency records (24 hours), as
 *   recurring jobs: they run on the hosts with `job-workers`.
 * - `notifications`: one LISTEN connection that delivers PostgreSQL notifications to subscribers
 *   (the relay's wake-ups, identity's credential and workspace cache evictions).
 */
export const PLATFORM_PARTS = ['job-workers', 'outbox-relay', 'retention', 'notifications'] as const;
export type PlatformPart = (typeof PLATFORM_PARTS)[number];

/** What this host opted into; injected where a part changes what a shared provider starts. */
export class PlatformParts {
  private readonly parts: ReadonlySet<PlatformPart>;

  constructor(parts: Iterable<PlatformPart>) {
    const set = new Set(parts);
    if (set.has('outbox-relay')) set.add('notifications');
    this.parts = set;
  }

  static all(): PlatformParts {
    return new PlatformParts(PLATFORM_PARTS);
  }

  has(part: PlatformPart): boolean {
    return this.parts.has(part);
  }
}
