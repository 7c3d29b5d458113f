import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock, JobQueue, JobTenant } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { DELIVERY_ID, EVENT_BODY, MATCHING_ENDPOINTS } from './delivery-sql';
import { jobTenantOfEvent } from './webhook-deliveries';
import { WebhookDispatcher } from './webhook-dispatcher';

export const FAN_OUT_JOB = 'webhooks.fan-out';
export const FAN_OUT_SWEEP_JOB = 'webhooks.fan-out-sweep';

/** What a fan-out job carries: the workspace whose new events go out. */
export interface FanOutJob extends JobTenant {
  workspaceId: string;
}

/** How long a workspace's events may wait for their fan-out before the sweep queues one. */
const SWEEP_GRACE_MS = 60_000;

/** Events fanned out per transaction; a longer backlog takes several. */
const BATCH = 500;

/**
 * Turns a workspace's committed events into webhook deliveries, off the write path: the payload
 * (the event's body, once) and one delivery per enabled endpoint that selects the event and
 * existed when it happened, then the deliveries' first attempts. A cursor per workspace
 * (`webhook_fanout_cursors`) holds the last event sequence fanned out; a run locks it, reads the
 * events after it in sequence order, writes their deliveries and moves it, in one transaction:
 * each event fans out exactly once, however many runs race (they queue on the cursor's row).
 * Reading by sequence misses nothing: the workspace's sequence is given in commit order (the
 * event counter's row is held until COMMIT), so every event below a committed one is committed.
 * The event hook queues a run after each commit that wrote selected events; a sweep every minute
 * runs the workspaces left behind (a process that died before queueing it).
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly jobs: JobQueue,
    private readonly dispatcher: WebhookDispatcher,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.jobs.define<FanOutJob>({
      name: FAN_OUT_JOB,
      handler: (job) => this.fanOut(job),
      concurrency: 2,
      maxLatencySeconds: 0.5,
    });
    this.jobs.define({
      name: FAN_OUT_SWEEP_JOB,
      cron: '* * * * *',
      handler: async () => {
        await this.sweep();
      },
    });
  }

  /** Fans out the workspace's events after its cursor, batch by batch, and starts their first attempts. */
  async fanOut(job: FanOutJob): Promise<void> {
    for (;;) {
      const { deliveryIds, events } = await this.txHost.withTransaction(() => this.fanOutBatch(job));
      if (deliveryIds.length > 0) await this.dispatcher.dispatchBatch(job, deliveryIds);
      if (events < BATCH) return;
    }
  }

  private async fanOutBatch(job: FanOutJob): Promise<{ deliveryIds: string[]; events: number }> {
    const scope = [job.organizationId, job.workspaceId];
    await this.txHost.tx.query(
      `INSERT INTO webhook_fanout_cursors (organization_id, workspace_id, last_sequence) VALUES ($1, $2, 0)
       ON CONFLICT (organization_id, workspace_id) DO NOTHING`,
      scope,
    );
    const [cursor]: Array<{ last_sequence: string }> = await this.txHost.tx.query(
      `SELECT last_sequence FROM webhook_fanout_cursors WHERE organization_id = $1 AND workspace_id = $2 FOR UPDATE`,
      scope,
    );
    const [outcome]: Array<{ delivery_ids: string[] | null; events: number }> = await this.txHost.tx.query(
      `WITH batch AS (
         SELECT * FROM events
          WHERE organization_id = $1 AND workspace_id = $2 AND sequence > $3
          ORDER BY sequence LIMIT ${BATCH}),
       payloads AS (
         INSERT INTO webhook_event_payloads (organization_id, workspace_id, event_id, event_type, body, created_at)
         SELECT $1, $2, e.id, e.type, ${EVENT_BODY}, e.created_at FROM batch e
          WHERE EXISTS (SELECT 1 FROM ${MATCHING_ENDPOINTS})
         ON CONFLICT (organization_id, event_id) DO NOTHING),
       deliveries AS (
         INSERT INTO webhook_deliveries (organization_id, workspace_id, id, endpoint_id, event_id, event_type, livemode,
                status, next_attempt_at, created_at, updated_at)
         SELECT $1, $2, ${DELIVERY_ID}, w.id, e.id, e.type, e.livemode, 'pending', e.created_at, e.created_at, e.created_at
           FROM batch e, ${MATCHING_ENDPOINTS}
         RETURNING id),
       moved AS (
         UPDATE webhook_fanout_cursors SET last_sequence = (SELECT max(sequence) FROM batch)
          WHERE organization_id = $1 AND workspace_id = $2 AND EXISTS (SELECT 1 FROM batch))
       SELECT (SELECT json_agg(id) FROM deliveries) AS delivery_ids, (SELECT count(*)::int FROM batch) AS events`,
      [...scope, cursor.last_sequence],
    );
    return { deliveryIds: outcome.delivery_ids ?? [], events: outcome.events };
  }

  /**
   * Queues a run for every workspace with events past its cursor older than `graceMs` (its run was
   * never queued, or was lost). A duplicate run is harmless: it waits on the cursor and finds
   * nothing left.
   */
  async sweep(graceMs = SWEEP_GRACE_MS): Promise<number> {
    const before = new Date(this.clock.now().getTime() - graceMs);
    const behind: Array<{ organization_id: string; workspace_id: string; livemode: boolean }> = await this.dataSource.query(
      `SELECT c.organization_id, c.workspace_id, w.mode = 'live' AS livemode
         FROM webhook_fanout_cursors c
         JOIN workspaces w ON w.organization_id = c.organization_id AND w.id = c.workspace_id
        WHERE EXISTS (SELECT 1 FROM events e
                       WHERE e.organization_id = c.organization_id AND e.workspace_id = c.workspace_id
                         AND e.sequence > c.last_sequence AND e.created_at <= $1)`,
      [before],
    );
    for (const workspace of behind) {
      const tenant = jobTenantOfEvent(workspace.organization_id, workspace.livemode);
      await this.jobs.send<FanOutJob>(FAN_OUT_JOB, tenant, { ...tenant, workspaceId: workspace.workspace_id });
    }
    return behind.length;
  }
}
