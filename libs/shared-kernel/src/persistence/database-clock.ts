import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';

const RESYNC_INTERVAL_MS = 60_000;

/**
 * The database's clock without a round trip per read: the offset between this process and
 * PostgreSQL is measured at start and every minute, so every instance agrees on "now" even
 * when the hosts' clocks drift apart.
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
    const sentAt = Date.now();
    const [row] = await this.dataSource.query<{ now: Date }[]>('SELECT clock_timestamp() AS now');
    const receivedAt = Date.now();
    this.offsetMs = row.now.getTime() - (sentAt + receivedAt) / 2;
  }
}
