import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsDate } from 'class-validator';

/** RFC 3339 date-time: date, `T`, time with seconds, optional fraction, explicit offset (`Z` or ±hh:mm). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A timestamp in a body or query: an RFC 3339 string, turned into a Date. Anything else (a
 * number of milliseconds, a boolean, "tomorrow", a date without time or offset) stays as sent
 * and is refused, instead of being coerced into some instant by `new Date()`.
 */
export function IsTimestamp(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && RFC3339.test(value) ? new Date(value) : value)),
    IsDate({ message: ({ property }) => `${property} must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z.` }),
  );
}
