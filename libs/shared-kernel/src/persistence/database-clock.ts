import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';

const RESYNC_INTERVAL_MS = 60_000;
/** Round trips per sync; the shortest one measures the offset (as NTP does). */
const SAMPLES = 5;

/**
 * The database's clock without a round trip per read: the offset between this process and
 * PostgreSQL is measured at start and every minute, so every instance agrees on "now" even
 * when the hosts' clocks drift apart. The offset's error is at most half the round trip it was
 * measured on: of several round trips on one connection, the shortest is kept (the first may
 * open the connection, which took hundreds of milliseconds on a loaded machine and left "now"
 * that far behind the database's).
 */
@Injectable()
export class DatabaseClock extends Clock implements OnModuleInit, OnModuleDestroy {
  private offsetMs = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async onModuleInit(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync().catch(() => undefined), RESYNC_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  private async sync(): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    try {
      let best: { roundTripMs: number; offsetMs: number } | undefined;
      for (let sample = 0; sample < SAMPLES; sample += 1) {
        const sentAt = performance.now();
        const [row] = (await runner.query('SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now_ms')) as Array<{
          now_ms: string;
        }>;
        const receivedAt = performance.now();
        // The database's time at the round trip's midpoint, against the host's at that moment.
        const hostAtMidpoint = Date.now() - (receivedAt - sentAt) / 2;
        const offsetMs = Number(row.now_ms) - hostAtMidpoint;
        if (!best || receivedAt - sentAt < best.roundTripMs) best = { roundTripMs: receivedAt - sentAt, offsetMs };
      }
      this.offsetMs = best!.offsetMs;
    } finally {
      await runner.release();
    }
  }
}
