import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface WindowCount {
  /** Requests counted in the current one-minute window, this one included. */
  hits: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
}

/**
 * Fixed one-minute windows counted in PostgreSQL, so a limit holds across every instance of the
 * service: one `INSERT … ON CONFLICT DO UPDATE … RETURNING` per request on an UNLOGGED table
 * (`rate_limit_windows`), on its own connection and outside any business transaction (a row lock
 * held for a whole request would serialize the organization's requests). The window is the
 * database clock's minute, so instances with skewed clocks agree. The organization's past
 * windows are removed by the same statement.
 */
@Injectable()
export class RateLimitCounter {
  constructor(private readonly dataSource: DataSource) {}

  async hit(organizationId: string, bucket: string): Promise<WindowCount> {
    const [row] = (await this.dataSource.query(
      `WITH past AS (
         DELETE FROM rate_limit_windows
          WHERE organization_id = $1 AND bucket = $2 AND window_start < date_trunc('minute', statement_timestamp())
       ),
       counted AS (
         INSERT INTO rate_limit_windows (organization_id, bucket, window_start, hits)
         VALUES ($1, $2, date_trunc('minute', statement_timestamp()), 1)
         ON CONFLICT (organization_id, bucket, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
         RETURNING hits, window_start
       )
       SELECT hits,
              greatest(1, ceil(extract(epoch FROM (window_start + interval '1 minute' - statement_timestamp()))))::int AS reset_seconds
         FROM counted`,
      [organizationId, bucket],
    )) as Array<{ hits: number; reset_seconds: number }>;
    return { hits: row.hits, resetSeconds: row.reset_seconds };
  }
}
