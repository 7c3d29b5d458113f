import { CursorBinding, CursorCodec } from './cursor';
import { Page, toPage } from './pagination';

export interface PageRequest {
  limit: number;
  cursor: string | undefined;
}

/**
 * One keyset page: decodes the cursor against the list's binding, fetches `limit + 1` rows
 * after that position, and signs the position of the last row returned.
 */
export async function keysetPage<Row>(
  cursors: CursorCodec,
  binding: CursorBinding,
  request: PageRequest,
  fetch: (after: unknown[] | undefined, limitPlusOne: number) => Promise<Row[]>,
  positionOf: (row: Row) => unknown[],
): Promise<Page<Row>> {
  const after = request.cursor === undefined ? undefined : cursors.decode(request.cursor, binding);
  const rows = await fetch(after, request.limit + 1);
  return toPage(rows, request.limit, (last) => cursors.encode(binding, positionOf(last)));
}

/** The position of the default order, newest first: `(created_at, id)` descending. */
export function newestFirstPosition(row: { created_at: Date; id: string }): unknown[] {
  return [row.created_at.toISOString(), row.id];
}
