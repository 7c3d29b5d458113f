import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock, JobQueue, jobTenantOf, preparedQuery } from '@app/shared-kernel';
import { CatalogEvents } from '../catalog-events';
import { GetCascadeRunQuery } from './get-cascade-run.query';
import { ModedTenant, modedTenantOf } from '../job-tenants';

export const CASCADE_RUN_SETTLE_JOB = 'catalog.cascade-run-settle';

interface SettleJob extends ModedTenant {
  runId: string;
}

/**
 * A cascade run's completion (`cascade_run.completed`), exactly once: in the transaction of the
 * step that finished its last task (or expanded it with nothing left to do). That step holds the
 * run's row while it looks, so two last tasks committing side by side cannot both see the other
 * still pending; a task that finds the row held (another task or the expansion is looking) does
 * not wait for it (it may hold the workspace's event sequence, which the holder may need), and
 * leaves the look to a job that runs after its commit.
 */
@Injectable()
export class CascadeRuns implements OnModuleInit {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly events: CatalogEvents,
  ) {}

  onModuleInit(): void {
    this.jobs.define<SettleJob>({ name: CASCADE_RUN_SETTLE_JOB, handler: (job) => this.settle(job), maxLatencySeconds: 1 });
  }

  /** After one of the run's tasks finished, in that task's transaction. */
  async afterTask(tenant: ModedTenant, runId: string): Promise<void> {
    const [held] = await this.query(
      `SELECT id FROM cascade_runs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE SKIP LOCKED`,
      [tenant.organizationId, tenant.workspaceId, runId],
    );
    if (held) {
      await this.completeIfDone(tenant, runId);
      return;
    }
    const job: SettleJob = { ...modedTenantOf(tenant), runId };
    await this.jobs.send(CASCADE_RUN_SETTLE_JOB, jobTenantOf(job), job);
  }

  /**
   * With the run's row held by the caller: a started run with no pending task left completes,
   * and writes its event (last, as events are).
   */
  async completeIfDone(tenant: ModedTenant, runId: string): Promise<void> {
    const completed = await this.query(
      `UPDATE cascade_runs r SET status = 'completed', completed_at = $4
        WHERE r.organization_id = $1 AND r.workspace_id = $2 AND r.id = $3 AND r.status = 'running'
          AND NOT EXISTS (SELECT 1 FROM cascade_tasks t WHERE t.organization_id = $1 AND t.workspace_id = $2 AND t.run_id = $3
                AND t.status = 'pending')
        RETURNING r.id`,
      [tenant.organizationId, tenant.workspaceId, runId, this.clock.now()],
    );
    if (completed.length === 0) return;
    await this.events.publish(tenant, [
      { type: 'cascade_run.completed', read: (reader) => new GetCascadeRunQuery(reader, runId) },
    ]);
  }

  @Transactional()
  async settle(job: SettleJob): Promise<void> {
    await this.query(`SELECT id FROM cascade_runs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`, [
      job.organizationId,
      job.workspaceId,
      job.runId,
    ]);
    await this.completeIfDone(job, job.runId);
  }

  private query(text: string, values: unknown[]): Promise<Record<string, unknown>[]> {
    return preparedQuery(this.txHost.tx, text, values);
  }
}
