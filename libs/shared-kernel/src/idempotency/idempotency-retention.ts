import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { JobQueue } from '../jobs/job-queue';
import { purgeInBatches } from '../persistence/purge-in-batches';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
export const PURGE_IDEMPOTENCY_RECORDS_JOB = 'idempotency.purge-expired';

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
    const total = await purgeInBatches(
      this.dataSource,
      'idempotency_records',
      ['organization_id', 'workspace_id', 'principal_id', 'idempotency_key'],
      cutoff,
    );
    if (total > 0) this.logger.log(`purged ${total} idempotency records older than ${cutoff.toISOString()}`);
    return total;
  }
}
