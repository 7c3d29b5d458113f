import { applyDecorators } from '@nestjs/common';
import { EARLIEST_TIMESTAMP, isRepresentableTimestamp, LATEST_TIMESTAMP, parseRfc3339 } from '@app/shared-kernel';
import { Transform } from 'class-transformer';
import { IsDate, ValidateBy } from 'class-validator';

/** The range check's name: api-property.ts publishes the range in the field's description. */
export const TIMESTAMP_RANGE = 'timestampInRange';
const RANGE = `from ${EARLIEST_TIMESTAMP.toISOString()} to ${LATEST_TIMESTAMP.toISOString()}`;
export const TIMESTAMP_RANGE_TEXT = `An instant ${RANGE}.`;

/**
 * A timestamp in a body or query: an RFC 3339 string of a real calendar instant, turned into a
 * Date. Anything else (a number of milliseconds, a boolean, "tomorrow", a date without time or
 * offset, 30 February) stays as sent and is refused, instead of being coerced into some instant
 * by `new Date()`. An instant outside what the service represents is OUT_OF_RANGE.
 */
export function IsTimestamp(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (parseRfc3339(value) ?? value) : value)),
    IsDate({ message: ({ property }) => `${property} must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z.` }),
    ValidateBy(
      {
        name: TIMESTAMP_RANGE,
        // Only a Date is measured: anything else is IsDate's to refuse, once.
        validator: { validate: (value: unknown) => !(value instanceof Date) || isRepresentableTimestamp(value) },
      },
      { context: { code: 'OUT_OF_RANGE' }, message: ({ property }) => `${property} must be ${RANGE}.` },
    ),
  );
}
