import { JobTenant } from './fair-priority';

/** Jobs due within the same minute count as due at the same moment. */
export const DUE_BUCKET_MS = 60_000;
/** Bounds the tracker's memory; an evicted count restarts at 0 (less fair, never incorrect). */
export const DUE_BUCKET_MAX_ENTRIES = 50_000;

/**
 * Counts, per queue, organization and workspace mode, the jobs this instance has sent that fall
 * due in the same bucket (the due minute: startAfter, or now), so that a single job gets its
 * organization's fair place without a query. Per instance: ordering across instances is best
 * effort, and correctness never depends on it. A Map keeps insertion order, so re-inserting an
 * entry on each use makes its first key the least recently used one.
 */
export class DueBucketTracker {
  private readonly counts = new Map<string, { bucket: number; count: number }>();
  private sweptBucket = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxEntries = DUE_BUCKET_MAX_ENTRIES,
    private readonly bucketMs = DUE_BUCKET_MS,
  ) {}

  /** The job's place (0 for the first) among the organization's jobs of this queue due in its bucket. */
  place(queue: string, tenant: JobTenant, dueAt: Date | undefined, now: Date): number {
    const current = Math.floor(now.getTime() / this.bucketMs);
    this.evictPastBuckets(current);
    const bucket = Math.max(current, Math.floor((dueAt ?? now).getTime() / this.bucketMs));
    const key = `${bucket}|${queue}|${tenant.workspaceMode}|${tenant.organizationId}`;
    const count = this.counts.get(key)?.count ?? 0;
    this.counts.delete(key);
    this.counts.set(key, { bucket, count: count + 1 });
    if (this.counts.size > this.maxEntries) this.counts.delete(this.counts.keys().next().value!);
    return count;
  }

  get size(): number {
    return this.counts.size;
  }

  /** A bucket in the past receives no more jobs (they fall due now): once a bucket, its entries go. */
  private evictPastBuckets(current: number): void {
    if (current <= this.sweptBucket) return;
    this.sweptBucket = current;
    for (const [key, entry] of this.counts) if (entry.bucket < current) this.counts.delete(key);
  }
}
