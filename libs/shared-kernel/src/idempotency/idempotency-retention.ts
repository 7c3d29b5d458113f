import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { JobQueue } from '../jobs/job-queue';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
export const PURGE_IDEMPOTENCY_RECORDS_JOB = 'idempotency.purge-expired';
const BATCH_SIZE = 5_000;

/** Idempotency records are kept 24 hours; an hourly job deletes older ones in small batches. */
@Injectable()
export class IdempotencyRetention implements OnModuleInit {
  private readonly logger = new Logger(IdempotencyRetention.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.jobs.define({
      name: PURGE_IDEMPOTENCY_RECORDS_JOB,
      cron: '17 * * * *',
      handler: async () => void (await this.purgeExpired()),
    });
  }

  /** Returns how many records were deleted. */
  async purgeExpired(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - IDEMPOTENCY_RETENTION_MS);
    let total = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        // By key, not ctid: on Citus a ctid names a row of one shard only.
        `DELETE FROM idempotency_records WHERE (organization_id, workspace_id, principal_id, idempotency_key) IN (
           SELECT organization_id, workspace_id, principal_id, idempotency_key FROM idempotency_records
            WHERE created_at < $1 LIMIT ${BATCH_SIZE})`,
        [cutoff],
      );
      total += deleted;
      if (deleted < BATCH_SIZE) break;
    }
    if (total > 0) this.logger.log(`purged ${total} idempotency records older than ${cutoff.toISOString()}`);
    return total;
  }
}
