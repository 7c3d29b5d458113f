import { TransactionHost } from '@nestjs-cls/transactional';
import { Injectable, Logger } from '@nestjs/common';
import { EVENT_ROWS_CTE, EventPublishedHook, EventTenant, JobQueue, SqlWrite, WrittenEvent } from '@app/shared-kernel';
import { MATCHING_ENDPOINTS } from './delivery-sql';
import { jobTenantOfEvent } from './webhook-deliveries';
import { FAN_OUT_JOB, FanOutJob } from './webhook-fan-out';

/**
 * Hands every batch of written events to the webhook fan-out (the EventPublishedHook, bound by the
 * API host) at no cost to the write beyond an index probe: the statement that writes the events
 * also answers whether an enabled endpoint of the workspace selects one of them, and only then,
 * once the transaction has committed, the workspace's fan-out job is queued. The fan-out writes the
 * payloads and the deliveries from the committed events (webhook-fan-out.ts), so the write path
 * carries no delivery rows however many endpoints there are, and its statement travels with the
 * COMMIT. Should the process die in between, the fan-out's sweep finds the workspace behind.
 */
@Injectable()
export class WebhookEventHook extends EventPublishedHook {
  private readonly logger = new Logger(WebhookEventHook.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly txHost: TransactionHost,
  ) {
    super();
  }

  override written(events: readonly WrittenEvent[], tenant: EventTenant): readonly SqlWrite[] {
    if (events.length === 0) return [];
    return [
      {
        text: `SELECT e.livemode FROM ${EVENT_ROWS_CTE} e WHERE EXISTS (SELECT 1 FROM ${MATCHING_ENDPOINTS}) LIMIT 1`,
        values: [tenant.organizationId, tenant.workspaceId],
        committed: (rows) => {
          if (rows.length > 0) this.queueFanOut(tenant, rows[0].livemode === true);
        },
      },
    ];
  }

  private queueFanOut(tenant: EventTenant, livemode: boolean): void {
    const jobTenant = jobTenantOfEvent(tenant.organizationId, livemode);
    const job: FanOutJob = { ...jobTenant, workspaceId: tenant.workspaceId };
    this.txHost
      .withoutTransaction(() => this.jobs.sendMany<FanOutJob>(FAN_OUT_JOB, jobTenant, [job]))
      .catch((error: Error) =>
        this.logger.warn(`webhook fan-out of workspace ${tenant.workspaceId} left to the sweep, not queued: ${error.message}`),
      );
  }
}
