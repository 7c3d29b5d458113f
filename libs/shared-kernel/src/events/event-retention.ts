import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { JobQueue } from '../jobs/job-queue';

export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const PURGE_EVENTS_JOB = 'events.purge-expired';
const BATCH_SIZE = 5_000;

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
    let total = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        // By key, not ctid: on Citus a ctid names a row of one shard only.
        `DELETE FROM events WHERE (organization_id, id) IN (
           SELECT organization_id, id FROM events WHERE created_at < $1 LIMIT ${BATCH_SIZE})`,
        [cutoff],
      );
      total += deleted;
      if (deleted < BATCH_SIZE) break;
    }
    if (total > 0) this.logger.log(`purged ${total} events older than ${cutoff.toISOString()}`);
    return total;
  }
}
