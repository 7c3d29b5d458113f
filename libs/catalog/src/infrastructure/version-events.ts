import { VersionLine, VersionRecord, VersionStatus } from '../domain/version-line';

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
