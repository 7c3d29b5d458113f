/**
 * The only source of "now" for business rules. Production uses the database's clock
 * (see DatabaseClock) so that every instance agrees; tests inject a ManualClock.
 */
export abstract class Clock {
  abstract now(): Date;
}

/** A clock moved by hand, for tests of expiry, grace periods and schedules. */
export class ManualClock extends Clock {
  private current: number;

  constructor(start: Date = new Date('2026-01-01T00:00:00.000Z')) {
    super();
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date): void {
    this.current = at.getTime();
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}
