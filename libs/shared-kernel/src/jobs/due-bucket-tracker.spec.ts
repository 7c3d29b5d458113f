import { DUE_BUCKET_MS, DueBucketTracker } from './due-bucket-tracker';
import { JobTenant } from './fair-priority';

const now = new Date('2028-01-01T10:00:30.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const tenantA: JobTenant = { organizationId: 'org-a', workspaceMode: 'live' };
const tenantB: JobTenant = { organizationId: 'org-b', workspaceMode: 'live' };

describe('DueBucketTracker', () => {
  it("counts an organization's jobs of one queue falling due in the same minute, apart from other organizations", () => {
    const tracker = new DueBucketTracker();
    const dueAt = later(5 * DUE_BUCKET_MS);
    expect([0, 1, 2].map(() => tracker.place('q', tenantA, dueAt, now))).toEqual([0, 1, 2]);
    expect(tracker.place('q', tenantB, dueAt, now)).toBe(0);
    expect(tracker.place('q', tenantA, new Date(dueAt.getTime() + 1000), now)).toBe(3);
  });

  it('keeps buckets, queues and workspace modes apart', () => {
    const tracker = new DueBucketTracker();
    tracker.place('q', tenantA, later(DUE_BUCKET_MS), now);
    expect(tracker.place('q', tenantA, later(2 * DUE_BUCKET_MS), now)).toBe(0);
    expect(tracker.place('other', tenantA, later(DUE_BUCKET_MS), now)).toBe(0);
    expect(tracker.place('q', { ...tenantA, workspaceMode: 'sandbox' }, later(DUE_BUCKET_MS), now)).toBe(0);
  });

  it('counts jobs due now or overdue in the current minute', () => {
    const tracker = new DueBucketTracker();
    expect(tracker.place('q', tenantA, undefined, now)).toBe(0);
    expect(tracker.place('q', tenantA, later(-10 * DUE_BUCKET_MS), now)).toBe(1);
    expect(tracker.place('q', tenantA, later(10_000), now)).toBe(2);
  });

  it('evicts the buckets that have passed', () => {
    const tracker = new DueBucketTracker();
    tracker.place('q', tenantA, undefined, now);
    tracker.place('q', tenantA, later(DUE_BUCKET_MS), now);
    tracker.place('q', tenantB, later(3 * DUE_BUCKET_MS), now);
    expect(tracker.size).toBe(3);
    const twoMinutesOn = later(2 * DUE_BUCKET_MS);
    expect(tracker.place('q', tenantB, later(3 * DUE_BUCKET_MS), twoMinutesOn)).toBe(1);
    expect(tracker.size).toBe(1);
  });

  it('holds at most its bound of entries, evicting the least recently used (whose count restarts at 0)', () => {
    const tracker = new DueBucketTracker(3);
    const dueAt = later(DUE_BUCKET_MS);
    const org = (index: number): JobTenant => ({ organizationId: `org-${index}`, workspaceMode: 'live' });
    tracker.place('q', org(0), dueAt, now);
    tracker.place('q', org(1), dueAt, now);
    tracker.place('q', org(2), dueAt, now);
    tracker.place('q', org(0), dueAt, now);
    tracker.place('q', org(3), dueAt, now);
    expect(tracker.size).toBe(3);
    expect(tracker.place('q', org(0), dueAt, now)).toBe(2);
    expect(tracker.place('q', org(1), dueAt, now)).toBe(0);
  });

  it('stays within its bound under many organizations', () => {
    const tracker = new DueBucketTracker(1000);
    for (let index = 0; index < 10_000; index += 1) {
      tracker.place('q', { organizationId: `org-${index}`, workspaceMode: 'live' }, later(DUE_BUCKET_MS), now);
    }
    expect(tracker.size).toBe(1000);
  });
});
