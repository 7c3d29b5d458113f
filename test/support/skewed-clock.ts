import { DataSource } from 'typeorm';

/**
 * Moves this process's wall clock by `skewMs` (R9): `Date.now()`, `new Date()` and `Date()`
 * read the real time plus the skew, while PostgreSQL keeps the real time. Only `Date` changes:
 * timers, `performance.now()` and `process.hrtime` run as before, so nothing waits longer or
 * shorter. Dates built from a value are untouched, and `instanceof Date` holds for dates made
 * before and after. Returns the function that restores the real `Date`.
 */
export function skewProcessClock(skewMs: number): () => void {
  const RealDate = globalThis.Date;
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + skewMs);
      else super(...(args as [string | number | Date]));
    }

    static override now(): number {
      return RealDate.now() + skewMs;
    }

    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate;
    }
  }
  // Called without `new`, Date() answers a string of "now": skewed the same way.
  const SkewedDateFunction = new Proxy(SkewedDate, {
    apply: () => new RealDate(RealDate.now() + skewMs).toString(),
  });
  globalThis.Date = SkewedDateFunction as unknown as DateConstructor;
  return () => {
    globalThis.Date = RealDate;
  };
}

/** The database's time now (`clock_timestamp()`, not the transaction's start). */
export async function databaseNow(dataSource: DataSource): Promise<Date> {
  const [row] = await dataSource.query<{ now: Date }[]>('SELECT clock_timestamp() AS now');
  return row.now;
}

/** Waits until the database's clock has passed `at` (plus `marginMs`), by sleeping on real timers. */
export async function untilDatabasePasses(dataSource: DataSource, at: Date, marginMs = 100): Promise<void> {
  for (;;) {
    const left = at.getTime() + marginMs - (await databaseNow(dataSource)).getTime();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, 1000)));
  }
}
