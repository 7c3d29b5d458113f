import { invalidParameter } from '../shared-kernel-errors';
import { EVENT_TYPES, EventType, isEventType } from './event-types';

/**
 * The catalog types a `type` filter names: each comma-separated item is an exact type, `prefix.*`
 * (every type under that prefix: `wallet.*` takes `wallet.hold.created` too) or `*`. An item that
 * names no type of the catalog is refused (400), so a typo never reads as "no events".
 */
export function eventTypesOf(filter: string): EventType[] {
  const types = new Set<EventType>();
  for (const raw of filter.split(',')) {
    const item = raw.trim();
    const matched =
      item === '*'
        ? [...EVENT_TYPES]
        : item.endsWith('.*')
          ? EVENT_TYPES.filter((type) => type.startsWith(item.slice(0, -1)))
          : isEventType(item)
            ? [item]
            : [];
    if (matched.length === 0) {
      throw invalidParameter(
        'type',
        'INVALID_VALUE',
        `type takes event types of the catalog, prefix.* or *, separated by commas; ${JSON.stringify(item.slice(0, 100))} names none.`,
      );
    }
    for (const type of matched) types.add(type);
  }
  return [...types].sort();
}
