import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';

const FLUSH_INTERVAL_MS = 5_000;

/**
 * `last_used_at` without a write on every request: uses are remembered in memory and written
 * in one statement every few seconds (and at shutdown). The value is at most that stale.
 */
@Injectable()
export class LastUsedRecorder implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(LastUsedRecorder.name);
  private pending = new Map<string, { organizationId: string; at: Date }>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Before the pool closes (TypeORM closes it in onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  record(organizationId: string, apiKeyId: string, at: Date): void {
    this.pending.set(apiKeyId, { organizationId, at });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    // One statement per organization: on Citus each then runs on that organization's shard alone.
    const byOrganization = new Map<string, { ids: string[]; at: Date[] }>();
    for (const [id, { organizationId, at }] of batch) {
      const uses = byOrganization.get(organizationId) ?? { ids: [], at: [] };
      uses.ids.push(id);
      uses.at.push(at);
      byOrganization.set(organizationId, uses);
    }
    for (const [organizationId, uses] of byOrganization) {
      try {
        await this.dataSource.query(
          `UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.at)
             FROM unnest($2::uuid[], $3::timestamptz[]) AS u(id, at)
            WHERE k.organization_id = $1 AND k.id = u.id`,
          [organizationId, uses.ids, uses.at],
        );
      } catch (error) {
        this.logger.warn(`could not record API key use: ${(error as Error).message}`);
      }
    }
  }
}
