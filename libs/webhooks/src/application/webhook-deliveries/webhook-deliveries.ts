import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { Clock, eventTypeSelected, isUuid, JobQueue, JobTenant, newId } from '@app/shared-kernel';
import { endpointNotFound } from '../webhook-endpoints/webhook-endpoint-rows';

/** The event as the contract shapes it (api-contract.md §4) and as it is posted, byte for byte. */
export interface WebhookEvent {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  sequence: number | string;
  workspace_id: string;
  livemode: boolean;
  data: { object: unknown; previous_attributes?: unknown };
  request: { id: string | null; idempotency_key: string | null } | null;
}

/** The organization the event belongs to (its workspace and mode are the event's own). */
export interface WebhookEventTenant {
  organizationId: string;
}

export const DELIVER_JOB = 'webhooks.deliver';

/** What a delivery job carries: enough to find the row and to queue fairly. */
export interface DeliverJob {
  organizationId: string;
  workspaceMode: JobTenant['workspaceMode'];
  deliveryId: string;
}

/**
 * The first attempts of the deliveries one transaction wrote (its events to the workspace's
 * endpoints), as one job: one claim for all of them, and one job's queue overhead rather than one
 * per delivery. Retries and sweeps go one delivery a job (DeliverJob).
 */
export const DELIVER_BATCH_JOB = 'webhooks.deliver-batch';

export interface DeliverBatchJob {
  organizationId: string;
  workspaceMode: JobTenant['workspaceMode'];
  deliveryIds: string[];
}

export function jobTenantOfEvent(organizationId: string, livemode: boolean): JobTenant {
  return { organizationId, workspaceMode: livemode ? 'live' : 'sandbox' };
}

/**
 * Queues deliveries of events to the workspace's endpoints. Call it inside the transaction that
 * writes the event: the payload, the delivery rows and their jobs commit (or roll back) with it,
 * so no event is sent for a rolled-back change and none committed is lost.
 */
@Injectable()
export class WebhookDeliveries {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
  ) {}

  /**
   * One delivery per enabled endpoint of the event's workspace whose `enabled_events` select its
   * type (`*`, the exact type, or `prefix.*`). Answers how many were queued.
   */
  async enqueueForEvent(event: WebhookEvent, tenant: WebhookEventTenant): Promise<number> {
    const endpoints: Array<{ id: string; enabled_events: string[] }> = await this.txHost.tx.query(
      `SELECT id, enabled_events FROM webhook_endpoints WHERE organization_id = $1 AND workspace_id = $2 AND status = 'enabled'`,
      [tenant.organizationId, event.workspace_id],
    );
    const selected = endpoints.filter((endpoint) => eventTypeSelected(endpoint.enabled_events, event.type));
    if (selected.length === 0) return 0;
    await this.queue(
      event,
      tenant,
      selected.map((endpoint) => endpoint.id),
    );
    return selected.length;
  }

  /**
   * One more delivery of an event to one endpoint of its workspace, whatever the endpoint's
   * filters (`POST /v1/events/{id}/redeliver`); WEBHOOK_ENDPOINT_NOT_FOUND when the endpoint is not
   * in the event's workspace. Answers the delivery's id.
   */
  async redeliver(event: WebhookEvent, tenant: WebhookEventTenant, endpointId: string): Promise<string> {
    const found: unknown[] = isUuid(endpointId)
      ? await this.txHost.tx.query(
          `SELECT 1 FROM webhook_endpoints WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [tenant.organizationId, event.workspace_id, endpointId],
        )
      : [];
    if (found.length === 0) throw endpointNotFound();
    const [deliveryId] = await this.queue(event, tenant, [endpointId]);
    return deliveryId;
  }

  private async queue(event: WebhookEvent, tenant: WebhookEventTenant, endpointIds: string[]): Promise<string[]> {
    const now = this.clock.now();
    const ids = endpointIds.map(() => newId());
    await this.txHost.tx.query(
      `INSERT INTO webhook_event_payloads (organization_id, workspace_id, event_id, event_type, body, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (organization_id, event_id) DO NOTHING`,
      [tenant.organizationId, event.workspace_id, event.id, event.type, JSON.stringify(event), now],
    );
    await this.txHost.tx.query(
      `INSERT INTO webhook_deliveries (organization_id, workspace_id, id, endpoint_id, event_id, event_type, livemode, status,
         next_attempt_at, created_at, updated_at)
       SELECT $1, $2, d.id, d.endpoint_id, $3, $4, $5, 'pending', $6, $6, $6
         FROM unnest($7::uuid[], $8::uuid[]) AS d (id, endpoint_id)`,
      [tenant.organizationId, event.workspace_id, event.id, event.type, event.livemode, now, ids, endpointIds],
    );
    const jobTenant = jobTenantOfEvent(tenant.organizationId, event.livemode);
    const jobs = ids.map((deliveryId) => ({ data: { ...jobTenant, deliveryId } satisfies DeliverJob }));
    if (jobs.length === 1) await this.jobs.send(DELIVER_JOB, jobTenant, jobs[0].data);
    else await this.jobs.sendFair(DELIVER_JOB, jobTenant, jobs);
    return ids;
  }
}
