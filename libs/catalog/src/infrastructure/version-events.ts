import { VersionLine, VersionRecord, VersionStatus } from '../domain/version-line';
import type { ReadEvent } from '../application/catalog-events';
import { GetChangeQuery } from '../application/changes/get-change.query';

/** What each line has reported so far, by row: a unit of work may save one aggregate twice. */
const reported = new WeakMap<VersionLine, Map<string, VersionStatus>>();

/**
 * The line's status changes since it was loaded that no save has reported yet (a go-live, a
 * release scheduled or fired, a version archived), in the order they are written.
 */
export function unreportedTransitions(line: VersionLine): VersionRecord[] {
  const seen = reported.get(line) ?? new Map<string, VersionStatus>();
  reported.set(line, seen);
  const rows = line
    .transitions()
    .map(({ row }) => row)
    .filter((row) => seen.get(row.id) !== row.status);
  for (const row of rows) seen.set(row.id, row.status);
  return rows;
}

/**
 * The changes these transitions settle: a version its change brought live (published now or its
 * release fired) applies it; a release taken out of the queue cancels it (a failed one has no
 * type). Written by the subject's save, after its versions' events: the change row is saved
 * before it, and the go-live's locks are taken before any event holds the workspace's sequence.
 */
export function changeEvents(rows: readonly VersionRecord[]): ReadEvent[] {
  return rows.flatMap((row): ReadEvent[] => {
    const changeId = row.changeId;
    if (!changeId) return [];
    if (row.status === 'published') return [{ type: 'change.applied', read: (reader) => new GetChangeQuery(reader, changeId) }];
    if (row.status === 'archived' && row.archivedReason === 'canceled') {
      return [{ type: 'change.canceled', read: (reader) => new GetChangeQuery(reader, changeId) }];
    }
    return [];
  });
}
