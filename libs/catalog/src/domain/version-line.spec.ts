import { DomainError } from '@app/shared-kernel';
import fc from 'fast-check';
import { CreatedBy, GoLiveRequest, VersionLine, VersionRecord } from './version-line';

const WHO: CreatedBy = { type: 'api_key', id: 'key' };
const INITIAL = 'initial';
const T0 = Date.parse('2027-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const SOURCE = { entityType: 'cost' as const, entityId: 'cost', versionId: 'revision', version: 2 };

let counter = 0;
const nextId = () => `v${(counter += 1)}`;

function goLive(line: VersionLine, overrides: Partial<GoLiveRequest> = {}): VersionRecord {
  return line.assertCanGoLive({
    stagedVersionId: line.draft?.id ?? 'none',
    archived: false,
    now: at(0),
    checkContent: () => undefined,
    ...overrides,
  });
}

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

/** A line with a published head v1 (hash h1) at minute 0. */
function published(): VersionLine {
  const line = VersionLine.start(INITIAL);
  line.openDraft({ id: nextId(), now: at(0), createdBy: WHO });
  line.touchDraft('h1', at(0));
  line.publishDraft({ at: at(0), changeId: 'c1' });
  return line;
}

describe('VersionLine', () => {
  describe('drafts', () => {
    it('opens the first draft as version 1 on the initial content; a second open on the same base changes nothing', () => {
      const line = VersionLine.start(INITIAL);
      expect(line.nextVersionNo).toBe(1);
      const opened = line.openDraft({ id: 'd1', now: at(0), createdBy: WHO });
      expect(opened).toMatchObject({
        copyFrom: null,
        copied: true,
        draft: { id: 'd1', version: 1, status: 'draft', baseVersionId: null },
      });
      expect(line.draftHoldsEdits()).toBe(false);
      expect(line.openDraft({ id: 'd2', now: at(1), createdBy: WHO })).toMatchObject({ copied: false, draft: { id: 'd1' } });
    });

    it('holds edits while its hash differs from its base’s; a reverted edit is no edit', () => {
      const line = published();
      line.openDraft({ id: 'd', now: at(1), createdBy: WHO });
      line.touchDraft('h2', at(1));
      expect(line.draftHoldsEdits()).toBe(true);
      line.touchDraft('h1', at(2));
      expect(line.draftHoldsEdits()).toBe(false);
      expect(line.draft).toMatchObject({ touchedAt: at(2) });
    });

    it('discard uses up the number; the next draft takes the following one', () => {
      const line = published();
      line.openDraft({ id: 'd2', now: at(1), createdBy: WHO });
      expect(line.discardDraft(at(2))).toMatchObject({ id: 'd2', version: 2, status: 'archived', archivedReason: 'discarded' });
      expect(line.openDraft({ id: 'd3', now: at(3), createdBy: WHO }).draft.version).toBe(3);
      expect(codeOf(() => VersionLine.start(INITIAL).discardDraft(at(0)))).toBe('STAGED_DRAFT_NOT_FOUND');
    });

    it('opens on a scheduled release; refuses other bases; re-bases an edit-free draft, refuses one with edits', () => {
      const line = published();
      const head = line.head!;
      line.openDraft({ id: 'r', now: at(1), createdBy: WHO });
      line.touchDraft('h2', at(1));
      const release = line.scheduleDraft({ scheduledFor: at(60), changeId: 'c2', now: at(1) });
      const onRelease = line.openDraft({ id: 'd', baseVersionId: release.id, now: at(2), createdBy: WHO });
      expect(onRelease).toMatchObject({
        copyFrom: release.id,
        copied: true,
        draft: { baseVersionId: release.id, contentHash: 'h2', version: 3 },
      });
      expect(line.openDraft({ id: 'x', baseVersionId: head.id, now: at(3), createdBy: WHO })).toMatchObject({
        copyFrom: head.id,
        copied: true,
        draft: { id: 'd', baseVersionId: head.id, contentHash: 'h1' },
      });
      expect(codeOf(() => line.openDraft({ id: 'x', baseVersionId: 'unknown', now: at(3), createdBy: WHO }))).toBe(
        'INVALID_BASE_VERSION',
      );
      line.touchDraft('h3', at(4));
      expect(codeOf(() => line.openDraft({ id: 'x', baseVersionId: release.id, now: at(5), createdBy: WHO }))).toBe(
        'DRAFT_HAS_STAGED_EDITS',
      );
      expect(line.draft).toMatchObject({ baseVersionId: head.id, contentHash: 'h3' });
    });
  });

  describe('the publish guard (model §2.7, in order)', () => {
    it('refuses a version that is not the working draft, then an archived entity, then nothing staged', () => {
      const line = published();
      expect(codeOf(() => goLive(line, { stagedVersionId: 'unknown' }))).toBe('VERSION_NOT_FOUND');
      expect(codeOf(() => goLive(line, { stagedVersionId: line.head!.id, archived: true }))).toBe('PUBLISH_NOT_WORKING_DRAFT');
      line.openDraft({ id: 'd', now: at(1), createdBy: WHO });
      expect(codeOf(() => goLive(line, { archived: true }))).toBe('PUBLISH_ENTITY_ARCHIVED');
      expect(codeOf(() => goLive(line))).toBe('PUBLISH_NOTHING_STAGED');
      expect(codeOf(() => goLive(line, { checkOnly: true, stagedVersionId: 'ignored' }))).toBe('PUBLISH_NOTHING_STAGED');
      // A first publish always passes, even of the initial content.
      const first = VersionLine.start(INITIAL);
      first.openDraft({ id: 'f', now: at(0), createdBy: WHO });
      expect(goLive(first).id).toBe('f');
    });

    it('refuses a schedule not in the future, a taken slot, a go-live before the base release or not_before, a stale base, then the content', () => {
      const line = published();
      line.openDraft({ id: 'a', now: at(0), createdBy: WHO });
      line.touchDraft('h2', at(0));
      expect(codeOf(() => goLive(line, { scheduledFor: at(0) }))).toBe('PUBLISH_SCHEDULE_IN_PAST');
      const release = line.scheduleDraft({ scheduledFor: at(60), changeId: 'c2', now: at(0) });
      line.openDraft({ id: 'b', baseVersionId: release.id, now: at(1), createdBy: WHO });
      line.touchDraft('h3', at(1));
      expect(codeOf(() => goLive(line, { scheduledFor: at(60) }))).toBe('PUBLISH_SCHEDULE_TAKEN');
      expect(codeOf(() => goLive(line))).toBe('PUBLISH_BEFORE_BASE_RELEASE');
      expect(codeOf(() => goLive(line, { scheduledFor: at(30) }))).toBe('PUBLISH_BEFORE_BASE_RELEASE');
      expect(codeOf(() => goLive(line, { scheduledFor: at(90), notBefore: at(120) }))).toBe('PUBLISH_BEFORE_COST_EFFECTIVE');
      expect(
        codeOf(() =>
          goLive(line, {
            scheduledFor: at(90),
            checkContent: () => {
              throw new DomainError('conflict', 'PUBLISH_FORMULA_INVALID', 'bad');
            },
          }),
        ),
      ).toBe('PUBLISH_FORMULA_INVALID');
      expect(goLive(line, { scheduledFor: at(90), notBefore: at(90) }).id).toBe('b');
    });

    it('refuses a draft whose base was superseded by other content (PUBLISH_STALE_BASE), not by a republish', () => {
      const line = published();
      line.openDraft({ id: 'r', now: at(0), createdBy: WHO });
      line.touchDraft('h2', at(0));
      const release = line.scheduleDraft({ scheduledFor: at(60), changeId: 'c2', now: at(0) });
      line.openDraft({ id: 'd', now: at(1), createdBy: WHO });
      line.touchDraft('h3', at(1));
      line.republish({ id: 'cascade', at: at(2), origin: 'cascade', cascadeSource: SOURCE, createdBy: WHO });
      expect(goLive(line, { now: at(3) }).id).toBe('d');
      line.fireRelease(release.id);
      expect(codeOf(() => goLive(line, { now: at(61) }))).toBe('PUBLISH_STALE_BASE');
    });
  });

  describe('go-live', () => {
    it('publishes now: head at T, the old head superseded at T, numbers move on', () => {
      const line = published();
      const old = line.head!;
      line.openDraft({ id: 'd', now: at(1), createdBy: WHO });
      line.touchDraft('h2', at(1));
      const { published: head, superseded } = line.publishDraft({ at: at(5), changeId: 'c2', releaseName: 'two' });
      expect(head).toMatchObject({
        id: 'd',
        version: 2,
        status: 'published',
        origin: 'manual',
        effectiveFrom: at(5),
        changeId: 'c2',
        releaseName: 'two',
      });
      expect(superseded).toMatchObject({ id: old.id, status: 'archived', archivedReason: 'superseded', effectiveTo: at(5) });
      expect(line.nextVersionNo).toBe(3);
      expect(line.draft).toBeUndefined();
    });

    it('lists the status changes since restore (what events tell), not an edit that keeps the status', () => {
      const stored = published();
      const head = stored.head!;
      const line = VersionLine.restore({ nextVersionNo: stored.nextVersionNo, initialHash: INITIAL, rows: [head] });
      expect(line.transitions()).toEqual([]);
      line.openDraft({ id: 'draft', now: at(1), createdBy: WHO });
      line.touchDraft('h2', at(1));
      line.scheduleDraft({ scheduledFor: at(30), changeId: 'c2', now: at(1) });
      line.fireRelease('draft');
      expect(line.transitions().map(({ row, from }) => [row.id, from, row.status])).toEqual([
        [head.id, 'published', 'archived'],
        ['draft', null, 'published'],
      ]);
    });

    it('queues releases by scheduled_for (rank on read), fires each at exactly its scheduled_for, errors or cancels them', () => {
      const line = published();
      const schedule = (hash: string, minute: number, changeId: string) => {
        line.openDraft({ id: nextId(), now: at(0), createdBy: WHO });
        line.touchDraft(hash, at(0));
        return line.scheduleDraft({ scheduledFor: at(minute), changeId, now: at(0) });
      };
      const late = schedule('h3', 90, 'late');
      const soon = schedule('h2', 30, 'soon');
      const middle = schedule('h4', 60, 'middle');
      expect(line.queue.map((row) => row.id)).toEqual([soon.id, middle.id, late.id]);
      expect([line.rank(soon.id), line.rank(middle.id), line.rank(late.id)]).toEqual([1, 2, 3]);
      expect(line.nextReleaseAt).toEqual(at(30));
      expect(line.dueReleases(at(59)).map((row) => row.id)).toEqual([soon.id]);

      const fired = line.fireRelease(soon.id);
      expect(fired.published).toMatchObject({ status: 'published', effectiveFrom: at(30), publishedAt: at(30) });
      expect(fired.superseded).toMatchObject({ effectiveTo: at(30) });
      expect([line.rank(middle.id), line.rank(late.id)]).toEqual([1, 2]);
      expect(
        line.errorRelease(middle.id, { code: 'PUBLISH_FORMULA_INVALID', message: 'x', details: { keys: ['k'] } }, at(61)).row,
      ).toMatchObject({
        status: 'archived',
        archivedReason: 'errored',
        errorCode: 'PUBLISH_FORMULA_INVALID',
        errorDetails: { keys: ['k'] },
      });
      expect(line.cancelRelease(late.id, at(62)).row).toMatchObject({ archivedReason: 'canceled' });
      expect(line.queue).toEqual([]);
      expect(codeOf(() => line.fireRelease(late.id))).toBe('INVALID_STATUS_TRANSITION');
      expect(codeOf(() => line.cancelRelease(soon.id, at(63)))).toBe('INVALID_STATUS_TRANSITION');
    });

    it('moves an edit-free draft to the new head when a release fires; keeps the base of a draft with edits', () => {
      const line = published();
      line.openDraft({ id: 'r', now: at(0), createdBy: WHO });
      line.touchDraft('h2', at(0));
      const release = line.scheduleDraft({ scheduledFor: at(30), changeId: 'c', now: at(0) });
      const head = line.head!;
      line.openDraft({ id: 'free', now: at(1), createdBy: WHO });
      expect(line.fireRelease(release.id).draftFollowUp).toEqual({ recopyFrom: release.id });
      expect(line.draft).toMatchObject({ baseVersionId: release.id, contentHash: 'h2' });

      const other = published();
      other.openDraft({ id: 'r2', now: at(0), createdBy: WHO });
      other.touchDraft('h2', at(0));
      const release2 = other.scheduleDraft({ scheduledFor: at(30), changeId: 'c', now: at(0) });
      other.openDraft({ id: 'edited', now: at(1), createdBy: WHO });
      other.touchDraft('h9', at(1));
      expect(other.fireRelease(release2.id).draftFollowUp).toBeNull();
      expect(other.draft!.baseVersionId).not.toBe(release2.id);
      expect(head.status).toBe('published');
    });

    it('cancel lists the versions based on the release; the draft falls back to the head keeping its edits', () => {
      const line = published();
      line.openDraft({ id: 'r', now: at(0), createdBy: WHO });
      line.touchDraft('h2', at(0));
      const release = line.scheduleDraft({ scheduledFor: at(30), changeId: 'c', now: at(0) });
      line.openDraft({ id: 'd', baseVersionId: release.id, now: at(1), createdBy: WHO });
      line.touchDraft('h3', at(1));
      const { dependents, draftFollowUp } = line.cancelRelease(release.id, at(2));
      expect(dependents.map((row) => row.id)).toEqual(['d']);
      expect(draftFollowUp).toBeNull();
      expect(line.draft).toMatchObject({ baseVersionId: line.head!.id, contentHash: 'h3' });
      expect(line.draftHoldsEdits()).toBe(true);
    });

    it('a republish takes the next number and moves an open draft up; an edit-free draft follows the new head', () => {
      const line = published();
      line.openDraft({ id: 'd', now: at(1), createdBy: WHO });
      const { published: cascade } = line.republish({
        id: 'k',
        at: at(2),
        origin: 'cascade',
        cascadeSource: SOURCE,
        createdBy: WHO,
      });
      expect(cascade).toMatchObject({
        version: 2,
        origin: 'cascade',
        contentHash: 'h1',
        cascadeSource: SOURCE,
        effectiveFrom: at(2),
      });
      expect(line.draft).toMatchObject({ id: 'd', version: 3, baseVersionId: 'k' });
      const errored = line.recordErroredRepublish({
        id: 'e',
        at: at(3),
        cascadeSource: SOURCE,
        createdBy: WHO,
        error: { code: 'PUBLISH_FORMULA_INVALID', message: 'x', details: { retired_keys: ['k'] } },
      });
      expect(errored).toMatchObject({
        version: 3,
        status: 'archived',
        archivedReason: 'errored',
        errorDetails: { retired_keys: ['k'] },
      });
      expect(line.draft!.version).toBe(4);
      expect(line.head!.id).toBe('k');
      expect(line.nextVersionNo).toBe(4);
    });

    it('lists changed rows in a safe write order: slots left before taken, new rows (which may take a moved draft’s number) last', () => {
      const line = published();
      line.openDraft({ id: 'd', now: at(1), createdBy: WHO });
      const headId = line.head!.id;
      const restored = VersionLine.restore({
        nextVersionNo: line.nextVersionNo,
        initialHash: INITIAL,
        rows: [line.head!, line.draft!],
      });
      restored.recordErroredRepublish({
        id: 'e',
        at: at(2),
        cascadeSource: SOURCE,
        createdBy: WHO,
        error: { code: 'X', message: 'x' },
      });
      restored.republish({ id: 'k', at: at(3), origin: 'cascade', cascadeSource: SOURCE, createdBy: WHO });
      expect(restored.changedRows().map((row) => [row.id, row.status, row.version])).toEqual([
        [headId, 'archived', 1],
        ['d', 'draft', 4],
        ['e', 'archived', 2],
        ['k', 'published', 3],
      ]);
    });
  });

  describe('property: random sequences keep the line’s invariants and every write order safe', () => {
    type Op =
      /** base: none (the head), an index into head + queue, or an id that is no allowed base. */
      | { kind: 'open'; base: number | 'none' | 'unknown' }
      | { kind: 'touch'; hash: string }
      | { kind: 'discard' }
      | { kind: 'publish' }
      | { kind: 'schedule'; minutes: number }
      | { kind: 'advance'; minutes: number; error: boolean }
      | { kind: 'cancel'; index: number }
      | { kind: 'republish' }
      | { kind: 'errored' };

    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('open' as const),
          base: fc.oneof({ weight: 3, arbitrary: fc.constant('none' as const) }, fc.nat(3), fc.constant('unknown' as const)),
        }),
      },
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant('touch' as const), hash: fc.constantFrom(INITIAL, 'h1', 'h2', 'h3') }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('discard' as const) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('publish' as const) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('schedule' as const), minutes: fc.integer({ min: 1, max: 6 }) }) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('advance' as const),
          minutes: fc.integer({ min: 1, max: 4 }),
          error: fc.boolean(),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), index: fc.nat(3) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('republish' as const) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('errored' as const) }) },
    );

    /** The stored table: what the repository would write, checked against the schema's unique indexes after every write. */
    function write(table: Map<string, VersionRecord>, rows: VersionRecord[]): void {
      for (const row of rows) {
        table.set(row.id, { ...row });
        const all = [...table.values()];
        const numbers = all.map((entry) => entry.version);
        expect(new Set(numbers).size).toBe(numbers.length);
        expect(all.filter((entry) => entry.status === 'draft').length).toBeLessThanOrEqual(1);
        expect(all.filter((entry) => entry.status === 'published').length).toBeLessThanOrEqual(1);
        const slots = all.filter((entry) => entry.status === 'scheduled').map((entry) => entry.scheduledFor!.getTime());
        expect(new Set(slots).size).toBe(slots.length);
      }
    }

    /** What the repository loads: every row that can still change, and the draft's base. */
    function load(table: Map<string, VersionRecord>, nextVersionNo: number): VersionLine {
      const rows = [...table.values()];
      const draft = rows.find((row) => row.status === 'draft');
      return VersionLine.restore({
        nextVersionNo,
        initialHash: INITIAL,
        rows: rows.filter((row) => row.status !== 'archived' || row.id === draft?.baseVersionId),
      });
    }

    it('one head, at most one draft, distinct ordered slots, non-overlapping live intervals, numbers never reused and in freeze order', () => {
      const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
      console.log(
        `version-line property: SEED=${seed} (replay: SEED=${seed} npm test -- libs/catalog/src/domain/version-line.spec.ts)`,
      );
      fc.assert(
        fc.property(fc.array(op, { minLength: 1, maxLength: 40, size: 'max' }), (ops) => {
          const table = new Map<string, VersionRecord>();
          let nextVersionNo = 1;
          let minute = 0;
          /** Numbers in the order rows were frozen (scheduled, published, errored) or discarded. */
          const used: number[] = [];
          const frozen = new Set<string>();
          const request = (line: VersionLine, scheduledFor?: Date) =>
            line.assertCanGoLive({
              stagedVersionId: line.draft?.id ?? 'none',
              archived: false,
              now: at(minute),
              scheduledFor,
              checkContent: () => undefined,
            });

          for (const step of ops) {
            const line = load(table, nextVersionNo);
            // Catch-up: due releases fire (or error) first, in order, at exactly their scheduled_for.
            const catchUp = (error: boolean) => {
              for (const due of line.dueReleases(at(minute))) {
                if (error) line.errorRelease(due.id, { code: 'PUBLISH_FORMULA_INVALID', message: 'x' }, at(minute));
                else line.fireRelease(due.id);
              }
            };
            catchUp(false);
            try {
              switch (step.kind) {
                case 'open': {
                  const candidates = [line.head, ...line.queue].filter((row): row is VersionRecord => row !== undefined);
                  const base =
                    step.base === 'none'
                      ? undefined
                      : step.base === 'unknown' || candidates.length === 0
                        ? 'unknown'
                        : candidates[step.base % candidates.length].id;
                  line.openDraft({ id: nextId(), baseVersionId: base, now: at(minute), createdBy: WHO });
                  break;
                }
                case 'touch':
                  if (line.draft) line.touchDraft(step.hash, at(minute));
                  break;
                case 'discard':
                  line.discardDraft(at(minute));
                  break;
                case 'publish':
                  request(line);
                  line.publishDraft({ at: at(minute), changeId: nextId() });
                  break;
                case 'schedule': {
                  const scheduledFor = at(minute + step.minutes);
                  request(line, scheduledFor);
                  line.scheduleDraft({ scheduledFor, changeId: nextId(), now: at(minute) });
                  break;
                }
                case 'advance':
                  minute += step.minutes;
                  catchUp(step.error);
                  break;
                case 'cancel': {
                  const row = line.queue[step.index];
                  if (row) line.cancelRelease(row.id, at(minute));
                  break;
                }
                case 'republish':
                  if (line.head)
                    line.republish({ id: nextId(), at: at(minute), origin: 'cascade', cascadeSource: SOURCE, createdBy: WHO });
                  break;
                case 'errored':
                  if (line.head) {
                    line.recordErroredRepublish({
                      id: nextId(),
                      at: at(minute),
                      cascadeSource: SOURCE,
                      createdBy: WHO,
                      error: { code: 'X', message: 'x' },
                    });
                  }
                  break;
              }
            } catch (error) {
              // Refusals are part of the game (and change nothing that is saved: a refused command rolls back).
              if (!(error instanceof DomainError)) throw error;
              continue;
            }
            const changed = line.changedRows();
            for (const row of changed) {
              if (row.status !== 'draft' && !frozen.has(row.id)) {
                frozen.add(row.id);
                used.push(row.version);
              }
            }
            write(table, changed);
            nextVersionNo = line.nextVersionNo;

            const rows = [...table.values()];
            // One head once anything went live; at most one draft.
            expect(rows.filter((row) => row.status === 'published').length).toBe(rows.some((row) => row.effectiveFrom) ? 1 : 0);
            expect(rows.filter((row) => row.status === 'draft').length).toBeLessThanOrEqual(1);
            // The queue: distinct slots, in the future of nothing that fired, ranked in order.
            const queue = load(table, nextVersionNo).queue;
            expect(queue.map((row) => row.scheduledFor!.getTime())).toEqual(
              [...queue.map((row) => row.scheduledFor!.getTime())].sort((x, y) => x - y),
            );
            queue.forEach((row, index) => expect(load(table, nextVersionNo).rank(row.id)).toBe(index + 1));
            // Live intervals never overlap, and each ends no earlier than it starts.
            const intervals = rows
              .filter((row) => row.effectiveFrom)
              .map((row) => [row.effectiveFrom!.getTime(), row.effectiveTo?.getTime() ?? Infinity] as const)
              // Zero-length intervals (two go-lives in one instant) sort before the one that lasts.
              .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
            for (const [from, to] of intervals) expect(to).toBeGreaterThanOrEqual(from);
            for (let index = 1; index < intervals.length; index += 1) {
              expect(intervals[index][0]).toBeGreaterThanOrEqual(intervals[index - 1][1]);
            }
            // Numbers: never reused, used up in freeze order, and the draft's is the next one.
            expect(new Set(rows.map((row) => row.version)).size).toBe(rows.length);
            expect(used).toEqual([...used].sort((x, y) => x - y));
            const draft = rows.find((row) => row.status === 'draft');
            expect(nextVersionNo).toBeGreaterThan(
              Math.max(0, ...rows.filter((row) => row.status !== 'draft').map((row) => row.version)),
            );
            if (draft) expect(draft.version).toBe(nextVersionNo);
          }
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 500), seed },
      );
    });
  });
});
