import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { JobQueue } from '../jobs/job-queue';
import { purgeInBatches } from '../persistence/purge-in-batches';

export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const PURGE_EVENTS_JOB = 'events.purge-expired';

/** Events are kept 30 days (api-contract §4); an hourly job deletes older ones in small batches. */
@Injectable()
export class EventRetention implements OnModuleInit {
  private readonly logger = new Logger(EventRetention.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.jobs.define({
      name: PURGE_EVENTS_JOB,
      cron: '23 * * * *',
      handler: async () => void (await this.purgeExpired()),
    });
  }

  /** Returns how many events were deleted. */
  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - EVENT_RETENTION_MS);
    const total = await purgeInBatches(this.dataSource, 'events', ['organization_id', 'id'], cutoff);
    if (total > 0) this.logger.log(`purged ${total} events older than ${cutoff.toISOString()}`);
    return total;
  }
}
