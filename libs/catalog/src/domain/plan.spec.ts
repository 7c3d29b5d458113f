import fc from 'fast-check';
import { DomainError } from '@app/shared-kernel';
import { NO_ALLOWANCE, DEFAULT_BAND } from './membership-terms';
import { Plan, PlanContent, PlanResolution, PriceCadenceUnit } from './plan';
import { VersionRecord } from './version-line';

/**
 * Random sequences of plan commands keep the version line's invariants (model §2): one head,
 * at most one draft, an ordered queue with distinct slots, live intervals that never overlap,
 * no version number used twice, the draft showing the next number. Every command runs the way
 * the application runs it: the plan's due releases fire first (catch-up on load), and a refused
 * command throws a DomainError. SEED=<n> replays a run; the seed is printed.
 */
const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
const runs = Number(process.env.PLAN_PROPERTY_RUNS ?? 300);

const PRODUCTS = ['p1', 'p2', 'p3'];
const CADENCES: PriceCadenceUnit[] = ['week', 'month', 'year'];
const BY = { type: 'api_key' as const, id: 'key' };

type Step =
  | { kind: 'advance'; ms: number }
  | { kind: 'cadence'; cadence: PriceCadenceUnit }
  | { kind: 'add'; product: number }
  | { kind: 'remove'; product: number }
  | { kind: 'open'; onRelease: number | null }
  | { kind: 'discard' }
  | { kind: 'publish'; resolves: boolean }
  | { kind: 'schedule'; offsetMs: number }
  | { kind: 'cancel'; index: number }
  | { kind: 'releaseFails'; on: boolean }
  | { kind: 'republish'; origin: 'cascade' | 'manual' }
  | { kind: 'erroredCascade' }
  | { kind: 'archive' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 5_000 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cadence' as const), cadence: fc.constantFrom(...CADENCES) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), product: fc.nat(PRODUCTS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), product: fc.nat(PRODUCTS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('open' as const), onRelease: fc.option(fc.nat(3), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('discard' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('publish' as const), resolves: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('schedule' as const), offsetMs: fc.integer({ min: -1_000, max: 8_000 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), index: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('releaseFails' as const), on: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('republish' as const),
      origin: fc.constantFrom('cascade' as const, 'manual' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('erroredCascade' as const) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'archive' as const }) },
);

let resolutionCounter = 0;
/** Every membership resolved to a fresh product version (so a republish always has something new). */
function resolved(content: PlanContent | undefined): PlanResolution & { ok: true } {
  resolutionCounter += 1;
  return {
    ok: true,
    memberships: (content?.memberships ?? []).map((membership) => ({
      productId: membership.productId,
      productVersionId: `${membership.productId}-v${resolutionCounter}`,
      trackMode: 'latest' as const,
    })),
  };
}

const refusal = new DomainError('conflict', 'PUBLISH_DEPENDENCY_UNPUBLISHED', 'A product on the plan has never gone live.');

class Model {
  now = new Date('2026-11-25T10:00:00Z');
  releasesFail = false;
  changes = 0;
  readonly plan: Plan;

  constructor() {
    this.plan = Plan.create({
      organizationId: 'org',
      workspaceId: 'ws',
      details: {
        name: 'Growth',
        description: null,
        publicDescription: null,
        externalId: null,
        metadata: {},
        customFields: {},
        translations: {},
        tags: [],
      },
      priceCadenceUnit: 'month',
      now: this.now,
      createdBy: BY,
    });
  }

  /** What loading the plan does before any command: its due releases fire, in order, at their scheduled_for. */
  catchUp(): void {
    for (const release of this.plan.line.dueReleases(this.now)) {
      const resolution = this.releasesFail ? ({ ok: false, error: refusal } as const) : resolved(this.plan.contentOf(release.id));
      this.plan.fireRelease(release.id, resolution, this.now);
    }
  }

  apply(command: Step): void {
    const plan = this.plan;
    const draft = plan.line.draft;
    switch (command.kind) {
      case 'advance':
        this.now = new Date(this.now.getTime() + command.ms);
        return;
      case 'cadence':
        if (command.cadence !== plan.workingContent.priceCadenceUnit) plan.stageCadence(command.cadence, this.now, BY);
        return;
      case 'add':
        plan.addMembership({
          productId: PRODUCTS[command.product],
          terms: { ...DEFAULT_BAND, ...NO_ALLOWANCE },
          tracking: { trackMode: 'latest', pinnedProductVersionId: null },
          now: this.now,
          createdBy: BY,
        });
        return;
      case 'remove':
        plan.removeMembership(PRODUCTS[command.product], this.now, BY);
        return;
      case 'open': {
        const base = command.onRelease === null ? undefined : plan.line.queue[command.onRelease]?.id;
        plan.openDraft({ baseVersionId: base, now: this.now, createdBy: BY });
        return;
      }
      case 'discard':
        plan.discardDraft(this.now);
        return;
      case 'publish': {
        const content = draft && plan.contentOf(draft.id);
        plan.publishDraft({
          stagedVersionId: draft?.id ?? 'none',
          changeId: `change-${(this.changes += 1)}`,
          now: this.now,
          resolution: command.resolves ? resolved(content) : { ok: false, error: refusal },
        });
        return;
      }
      case 'schedule': {
        const content = draft && plan.contentOf(draft.id);
        plan.scheduleDraft({
          stagedVersionId: draft?.id ?? 'none',
          changeId: `change-${(this.changes += 1)}`,
          scheduledFor: new Date(this.now.getTime() + command.offsetMs),
          now: this.now,
          resolution: resolved(content),
        });
        return;
      }
      case 'cancel': {
        const release = plan.line.queue[command.index];
        if (release) plan.cancelRelease(release.id, this.now);
        return;
      }
      case 'releaseFails':
        this.releasesFail = command.on;
        return;
      case 'republish': {
        const head = plan.line.head;
        if (!head || plan.archived) return;
        plan.republish({
          now: this.now,
          origin: command.origin,
          createdBy: BY,
          cascadeSource:
            command.origin === 'cascade' ? { entityType: 'product', entityId: 'p1', versionId: 'pv', version: 2 } : null,
          resolution: resolved(plan.contentOf(head.id)),
        });
        return;
      }
      case 'erroredCascade':
        plan.recordErroredCascade({
          now: this.now,
          createdBy: BY,
          cascadeSource: { entityType: 'product', entityId: 'p1', versionId: 'pv', version: 2 },
          error: refusal,
        });
        return;
      case 'archive':
        plan.archive(this.now);
        return;
    }
  }

  /** Every row the plan ever had (nothing was restored, so every row is a pending write). */
  rows(): VersionRecord[] {
    return this.plan.line.changedRows();
  }
}

function assertInvariants(model: Model): void {
  const { plan } = model;
  const rows = model.rows();
  const published = rows.filter((row) => row.status === 'published');
  const drafts = rows.filter((row) => row.status === 'draft');
  expect(published.length).toBeLessThanOrEqual(1);
  expect(drafts.length).toBeLessThanOrEqual(1);
  expect(plan.line.head?.id).toBe(published[0]?.id);
  expect(plan.line.draft?.id).toBe(drafts[0]?.id);

  // No number used twice; the draft shows the next number, every other row an earlier one.
  const numbers = rows.map((row) => row.version);
  expect(new Set(numbers).size).toBe(numbers.length);
  for (const row of rows) {
    if (row.status === 'draft') expect(row.version).toBe(plan.line.nextVersionNo);
    else expect(row.version).toBeLessThan(plan.line.nextVersionNo);
  }

  // The queue: distinct slots in firing order, each bound to its change; nothing due is left unfired.
  const queue = plan.line.queue;
  const slots = queue.map((row) => row.scheduledFor!.getTime());
  expect(slots).toEqual([...slots].sort((a, b) => a - b));
  expect(new Set(slots).size).toBe(slots.length);
  for (const row of queue) {
    expect(row.changeId).not.toBeNull();
    expect(row.scheduledFor!.getTime()).toBeGreaterThan(model.now.getTime());
  }
  expect(plan.line.nextReleaseAt?.getTime() ?? null).toBe(slots[0] ?? null);

  // Live intervals [effective_from, effective_to) never overlap; only the head is open-ended.
  const lived = rows
    .filter((row) => row.effectiveFrom !== null)
    .sort((a, b) => a.effectiveFrom!.getTime() - b.effectiveFrom!.getTime());
  for (const row of lived) {
    if (row.status === 'published') expect(row.effectiveTo).toBeNull();
    else {
      expect(row).toMatchObject({ status: 'archived', archivedReason: 'superseded' });
      expect(row.effectiveTo!.getTime()).toBeGreaterThanOrEqual(row.effectiveFrom!.getTime());
    }
  }
  for (let index = 1; index < lived.length; index += 1) {
    expect(lived[index].effectiveFrom!.getTime()).toBeGreaterThanOrEqual(lived[index - 1].effectiveTo!.getTime());
  }
  if (published[0]) expect(published[0]).toBe(lived[lived.length - 1]);

  // Archived rows carry their reason; errored ones their refusal; cascades their source.
  for (const row of rows) {
    expect(row.status === 'archived').toBe(row.archivedReason !== null);
    expect(row.archivedReason === 'errored').toBe(row.errorCode !== null);
    expect(row.origin === 'cascade').toBe(row.cascadeSource !== null);
  }

  // The entity: version = the head's number (1 before a go-live); active once something went live, unless archived.
  expect(plan.version).toBe(published[0]?.version ?? 1);
  const status = plan.snapshot.status;
  if (status !== 'archived') expect(status).toBe(lived.length > 0 ? 'active' : 'draft');
  else expect(queue).toEqual([]);
}

describe('Plan version line under random command sequences (property)', () => {
  it(`keeps one head, at most one draft, an ordered queue, non-overlapping live intervals and unique numbers (${runs} runs, SEED printed)`, () => {
    console.log(
      `plan version line property: SEED=${seed} (replay: SEED=${seed} npm test -- libs/catalog/src/domain/plan.spec.ts)`,
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const model = new Model();
        assertInvariants(model);
        for (const command of steps) {
          model.catchUp();
          try {
            model.apply(command);
          } catch (error) {
            // A refusal is an answer (the application rolls its transaction back); anything else is a bug.
            if (!(error instanceof DomainError)) throw error;
          }
          model.catchUp();
          assertInvariants(model);
        }
      }),
      { seed, numRuns: runs },
    );
  });

  it('refuses what the line forbids: publishing or scheduling with nothing staged, a slot in the past or taken, a draft before its base release', () => {
    const model = new Model();
    const { plan } = model;
    const publish = () => model.apply({ kind: 'publish', resolves: true });
    const codeOf = (act: () => void) => {
      try {
        act();
        return 'accepted';
      } catch (error) {
        return (error as DomainError).code;
      }
    };
    expect(codeOf(publish)).toBe('accepted');
    expect(codeOf(() => model.apply({ kind: 'open', onRelease: null }))).toBe('accepted');
    expect(codeOf(publish)).toBe('PUBLISH_NOTHING_STAGED');
    model.apply({ kind: 'cadence', cadence: 'year' });
    expect(codeOf(() => model.apply({ kind: 'schedule', offsetMs: 0 }))).toBe('PUBLISH_SCHEDULE_IN_PAST');
    expect(codeOf(() => model.apply({ kind: 'schedule', offsetMs: 1000 }))).toBe('accepted');
    model.apply({ kind: 'open', onRelease: 0 });
    model.apply({ kind: 'cadence', cadence: 'week' });
    expect(codeOf(publish)).toBe('PUBLISH_BEFORE_BASE_RELEASE');
    expect(codeOf(() => model.apply({ kind: 'schedule', offsetMs: 1000 }))).toBe('PUBLISH_SCHEDULE_TAKEN');
    expect(codeOf(() => model.apply({ kind: 'schedule', offsetMs: 2000 }))).toBe('accepted');
    expect(plan.line.queue.map((row) => row.version)).toEqual([2, 3]);
    model.apply({ kind: 'advance', ms: 2500 });
    model.catchUp();
    expect(plan.line.head?.version).toBe(3);
    expect(plan.line.queue).toEqual([]);
    assertInvariants(model);
  });
});
