import { EARLIEST_TIMESTAMP, isRepresentableTimestamp, LATEST_TIMESTAMP, parseRfc3339 } from './rfc3339';

describe('parseRfc3339', () => {
  it.each([
    ['2026-01-31T09:00:00Z', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31t09:00:00.123456789z', '2026-01-31T09:00:00.123Z'],
    ['2028-02-29T23:59:59+02:00', '2028-02-29T21:59:59.000Z'],
    ['2026-06-01T00:00:00-23:59', '2026-06-01T23:59:00.000Z'],
  ])('reads %s', (text, iso) => {
    expect(parseRfc3339(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2027-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '2026-01-01',
    '2026-01-01T00:00:00',
    '1700000000000',
  ])('refuses %s', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  it('bounds what is represented to the epoch … the last year before 10000', () => {
    expect(isRepresentableTimestamp(EARLIEST_TIMESTAMP)).toBe(true);
    expect(isRepresentableTimestamp(LATEST_TIMESTAMP)).toBe(true);
    expect(isRepresentableTimestamp(parseRfc3339('0001-01-01T00:00:00Z')!)).toBe(false);
    expect(isRepresentableTimestamp(parseRfc3339('1969-12-31T23:59:59.999Z')!)).toBe(false);
    expect(isRepresentableTimestamp(parseRfc3339('9999-12-31T00:00:00Z')!)).toBe(false);
  });
});
