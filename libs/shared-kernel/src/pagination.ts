export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

export interface LimitDefaults {
  default: number;
  max: number;
}

export interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; has_more: boolean };
}

/**
 * The `limit` query parameter, forgiving by design: a positive integer (number or digits
 * string) is clamped to the maximum, anything else ('0', '-1', '1.5', 'abc', '', arrays)
 * falls back to the default rather than failing the request.
 */
export function parseLimit(raw: unknown, defaults: LimitDefaults = { default: DEFAULT_PAGE_LIMIT, max: MAX_PAGE_LIMIT }): number {
  const limit = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    return defaults.default;
  }
  return Math.min(limit, defaults.max);
}

/**
 * Builds a page from rows queried with `limit + 1`: the extra row only tells whether there is
 * more, and the cursor points after the last row returned.
 */
export function toPage<T>(rowsFetchedWithOneExtra: T[], limit: number, cursorFor: (last: T) => string): Page<T> {
  const hasMore = rowsFetchedWithOneExtra.length > limit;
  const data = rowsFetchedWithOneExtra.slice(0, limit);
  return {
    data,
    pagination: { cursor: hasMore ? cursorFor(data[data.length - 1]) : null, has_more: hasMore },
  };
}
