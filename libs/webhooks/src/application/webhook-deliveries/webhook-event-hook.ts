import { TransactionHost } from '@nestjs-cls/transactional';
import { Injectable, Logger } from '@nestjs/common';
import { EVENT_ROWS_CTE, EventPublishedHook, EventTenant, JobQueue, SqlWrite, WrittenEvent } from '@app/shared-kernel';
import { DELIVER_BATCH_JOB, DeliverBatchJob, jobTenantOfEvent } from './webhook-deliveries';

/** An endpoint `w` selects the event `e`: `*`, the exact type, or `prefix.*` (as eventTypeMatches). */
const SELECTS = `EXISTS (SELECT 1 FROM unnest(w.enabled_events) f
  WHERE f = '*' OR f = e.type OR (right(f, 2) = '.*' AND starts_with(e.type, left(f, -1))))`;

/** The workspace's enabled endpoints (`$1` organization, `$2` workspace) that select the event `e`. */
const MATCHING_ENDPOINTS = `webhook_endpoints w
  WHERE w.organization_id = $1 AND w.workspace_id = $2 AND w.status = 'enabled' AND ${SELECTS}`;

/**
 * The body posted: the event as GET /v1/events/{id} answers it (same fields, same order, same
 * formats: created_at as toISOString writes it, sequence a number), from the row just inserted.
 */
const BODY = `json_build_object(
  'id', e.id, 'object', 'event', 'type', e.type,
  'created_at', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'sequence', e.sequence, 'workspace_id', e.workspace_id, 'livemode', e.livemode, 'data', e.data,
  'request', CASE WHEN e.request_id IS NULL THEN NULL
                  ELSE json_build_object('id', e.request_id, 'idempotency_key', e.idempotency_key) END)::text`;

/** A UUIDv7 (like newId) stamped with the event's time: random bits, the version nibble set to 7. */
const DELIVERY_ID = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
  PLACING substring(int8send(floor(extract(epoch FROM e.created_at) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * Queues every written event's webhook deliveries in the statement that writes the event (the
 * EventPublishedHook, bound by the API host): its payload and one delivery per enabled endpoint of
 * the workspace whose `enabled_events` select its type, both decided in SQL from the rows the
 * statement inserts, so a workspace without a matching endpoint costs no round trip and writes
 * nothing (two index probes inside the statement). The delivery jobs need the rows committed, so
 * their job (one for the transaction's deliveries) is queued once the transaction has committed, and
 * only when a delivery was written: the
 * statement then travels with the COMMIT and holds no lock across another round trip. Should the
 * process die between the two, the dispatcher's sweep queues what is due and unclaimed.
 * Every statement names organization_id: on Citus the change's statement still routes to the
 * organization's shard (every table it touches is colocated there).
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
    const scope = [tenant.organizationId, tenant.workspaceId];
    return [
      {
        text: `INSERT INTO webhook_event_payloads (organization_id, workspace_id, event_id, event_type, body, created_at)
          SELECT $1, $2, e.id, e.type, ${BODY}, e.created_at
            FROM ${EVENT_ROWS_CTE} e
           WHERE EXISTS (SELECT 1 FROM ${MATCHING_ENDPOINTS})`,
        values: scope,
      },
      {
        text: `INSERT INTO webhook_deliveries (organization_id, workspace_id, id, endpoint_id, event_id, event_type, livemode,
                 status, next_attempt_at, created_at, updated_at)
          SELECT $1, $2, ${DELIVERY_ID}, w.id, e.id, e.type, e.livemode, 'pending', e.created_at, e.created_at, e.created_at
            FROM ${EVENT_ROWS_CTE} e, ${MATCHING_ENDPOINTS}
          RETURNING id, livemode`,
        values: scope,
        committed: (rows) => this.queueJobs(tenant.organizationId, rows as Array<{ id: string; livemode: boolean }>),
      },
    ];
  }

  private queueJobs(organizationId: string, deliveries: Array<{ id: string; livemode: boolean }>): void {
    if (deliveries.length === 0) return;
    const tenant = jobTenantOfEvent(organizationId, deliveries[0].livemode);
    const job: DeliverBatchJob = { ...tenant, deliveryIds: deliveries.map((delivery) => delivery.id) };
    this.txHost
      .withoutTransaction(() => this.jobs.sendMany<DeliverBatchJob>(DELIVER_BATCH_JOB, tenant, [job]))
      .catch((error: Error) =>
        this.logger.warn(`${deliveries.length} webhook deliveries left to the sweep, their job not queued: ${error.message}`),
      );
  }
}
