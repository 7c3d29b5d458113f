/**
 * The instants the service accepts from clients: from the Unix epoch to a year (the longest
 * billing period) before the end of 9999, so that a period computed from any of them still ends
 * on a four-digit year, as RFC 3339 writes it (`9999-12-31` started a period that ended on
 * `+010000-01-31`; `0001-01-01`, one that ended in 1901).
 */
export const EARLIEST_TIMESTAMP = new Date('1970-01-01T00:00:00.000Z');
export const LATEST_TIMESTAMP = new Date('9998-12-31T23:59:59.999Z');

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * An RFC 3339 date-time (date, `T`, time with seconds, optional fraction, explicit offset) read
 * field by field, or undefined: `new Date()` alone turned 30 February into 2 March.
 */
export function parseRfc3339(value: string): Date | undefined {
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [offsetHours = 0, offsetMinutes = 0] = match
    .slice(7)
    .filter((part) => part !== undefined)
    .map(Number);
  const fits =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  const date = fits ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

export function isRepresentableTimestamp(date: Date): boolean {
  return date >= EARLIEST_TIMESTAMP && date <= LATEST_TIMESTAMP;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
