import { performance } from 'node:perf_hooks';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Clock, EventLog, JobQueue, JobTenant } from '@app/shared-kernel';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS, retryDelayAfter } from '../../domain/retry-schedule';
import { WebhookSender, WebhookSendError } from '../delivery-ports';
import { WebhookSecretVault } from '../secret-vault';
import { webhookEndpointResponse } from '../webhook-endpoints/webhook-endpoint-response';
import { ENDPOINT_COLUMNS, EndpointRow, toView } from '../webhook-endpoints/webhook-endpoint-rows';
import { WebhookUrlGuard } from '../url-guard';
import { DELIVER_BATCH_JOB, DELIVER_JOB, DeliverBatchJob, DeliverJob, jobTenantOfEvent } from './webhook-deliveries';

export const SWEEP_JOB = 'webhooks.sweep';

export const PURGE_JOB = 'webhooks.purge';

/** Attempts one endpoint may have in flight at once on one instance; more wait their turn. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;

/** How long a claimed attempt may run before the sweep takes it for lost (resolution + timeout + recording). */
const LEASE_MS = 60_000;

/**
 * A delivery due this long without a claim is requeued by the sweep: its job was lost, exhausted,
 * or never queued (the process died between the event's COMMIT and queueing its deliveries).
 */
const UNCLAIMED_GRACE_MS = 60_000;

/** When an endpoint is at its limit, the job comes back after this at the soonest (see busyDelay). */
const BUSY_RETRY_MS = 1_000;

/** Weight of the latest attempt in an endpoint's typical attempt duration (a moving average). */
const DURATION_WEIGHT = 0.3;

const SWEEP_BATCH = 500;

/** Payloads, deliveries and their log are kept this long after the event. */
const RETENTION_MS = 30 * 24 * 3_600_000;

const ERROR_MAX = 500;

interface AttemptRow {
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  livemode: boolean;
  url: string;
  endpoint_status: 'enabled' | 'disabled';
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  body: string;
}

interface ClaimedRow extends AttemptRow {
  id: string;
}

interface Outcome {
  succeeded: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  url: string;
  /** No further attempt (the endpoint is disabled). */
  final: boolean;
}

/**
 * Delivers queued webhooks. A delivery job only claims its delivery (a lease on the row) and starts
 * the HTTP attempt beside the job worker, so the worker is free again at once: an endpoint that
 * answers slowly or never holds only its own attempts, at most MAX_IN_FLIGHT_PER_ENDPOINT of them,
 * and never another endpoint's or another organization's (the jobs themselves are queued fairly
 * per organization by JobQueue). Each attempt's outcome, its log row, the next attempt's job and
 * the endpoint's failure streak commit in one transaction. An attempt whose server died leaves
 * its lease to expire, and the sweep queues it again: at least once.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly inFlightPerEndpoint = new Map<string, number>();
  /** How long an endpoint's attempts take, per endpoint with attempts in flight on this instance. */
  private readonly attemptMs = new Map<string, number>();
  private readonly running = new Map<
    string,
    { controller: AbortController; done: Promise<void>; endpointId: string; startedAt: number }
  >();
  private stopping = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly urls: WebhookUrlGuard,
    private readonly sender: WebhookSender,
    private readonly vault: WebhookSecretVault,
    private readonly events: EventLog,
  ) {}

  onModuleInit(): void {
    this.jobs.define<DeliverJob>({
      name: DELIVER_JOB,
      handler: (job) => this.dispatch(job),
      concurrency: 2,
      maxLatencySeconds: 0.5,
    });
    this.jobs.define<DeliverBatchJob>({
      name: DELIVER_BATCH_JOB,
      handler: (job) => this.dispatchBatch(job),
      concurrency: 2,
      maxLatencySeconds: 0.5,
    });
    this.jobs.define({
      name: SWEEP_JOB,
      cron: '* * * * *',
      handler: async () => {
        await this.sweep();
      },
    });
    this.jobs.define({ name: PURGE_JOB, cron: '41 3 * * *', handler: () => this.purge() });
  }

  /** Attempts still running are interrupted (not recorded): their leases expire and the sweep requeues them. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const running = [...this.running.values()];
    for (const attempt of running) attempt.controller.abort();
    await Promise.allSettled(running.map((attempt) => attempt.done));
  }

  /** Attempts in flight on this instance (tests wait for them). */
  get inFlight(): number {
    return this.running.size;
  }

  /** Claims a due delivery and starts its attempt; answers once started, not once finished. */
  async dispatch(job: DeliverJob): Promise<void> {
    await this.claimAndStart(job, [job.deliveryId]);
  }

  /** dispatch for the first attempts of one transaction's deliveries: one claim for all of them. */
  async dispatchBatch(job: DeliverBatchJob): Promise<void> {
    await this.claimAndStart(job, job.deliveryIds);
  }

  /**
   * Claims the due deliveries among `deliveryIds` and starts their attempts. The claim reads what
   * each attempt needs in the same statement (one round trip); a delivery whose endpoint is at its
   * limit gives its claim back and comes back later in a job of its own.
   */
  private async claimAndStart(tenant: JobTenant, deliveryIds: string[]): Promise<void> {
    // Thrown, so the job is retried by another instance (or this one after a restart).
    if (this.stopping) throw new Error('Shutting down: the delivery job is retried');
    const ids = deliveryIds.filter((id) => !this.running.has(id));
    if (ids.length === 0) return;
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    // Deleted with its endpoint, recorded meanwhile, not due yet, or claimed by another attempt: not claimed.
    const rows: ClaimedRow[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE webhook_deliveries SET lease_until = $4
          WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND status = 'pending' AND next_attempt_at <= $3
            AND (lease_until IS NULL OR lease_until <= $3)
          RETURNING id, workspace_id, endpoint_id, event_id, attempt, livemode)
       SELECT d.id, d.workspace_id, d.endpoint_id, d.event_id, d.attempt, d.livemode, e.url, e.status AS endpoint_status,
              e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, p.body
         FROM claimed d
         JOIN webhook_endpoints e ON e.organization_id = $1 AND e.id = d.endpoint_id
         JOIN webhook_event_payloads p ON p.organization_id = $1 AND p.event_id = d.event_id`,
      [tenant.organizationId, ids, now, leaseUntil],
    );
    // Every attempt starts now, with what the claim read: none waits behind another statement
    // (an endpoint deleted or a secret rotated meanwhile would otherwise be attempted from stale rows).
    const jobOf = (row: ClaimedRow): DeliverJob => ({
      organizationId: tenant.organizationId,
      workspaceMode: tenant.workspaceMode,
      deliveryId: row.id,
    });
    const busy: ClaimedRow[] = [];
    for (const row of rows) {
      if (this.running.has(row.id)) continue;
      if ((this.inFlightPerEndpoint.get(row.endpoint_id) ?? 0) < MAX_IN_FLIGHT_PER_ENDPOINT) this.start(jobOf(row), row);
      else busy.push(row);
    }
    if (busy.length === 0) return;
    // Given back due when its job comes back, so the sweep (due and unclaimed for a minute) takes
    // only a delivery whose job was lost, not one waiting its turn behind a busy endpoint.
    const comesBack = busy.map((row) => new Date(now.getTime() + this.busyDelay(row.endpoint_id)));
    await this.dataSource.query(
      `UPDATE webhook_deliveries d SET lease_until = NULL, next_attempt_at = b.next_attempt_at
         FROM unnest($2::uuid[], $3::timestamptz[]) AS b (id, next_attempt_at)
        WHERE d.organization_id = $1 AND d.id = b.id AND d.status = 'pending' AND d.lease_until = $4`,
      [tenant.organizationId, busy.map((row) => row.id), comesBack, leaseUntil],
    );
    for (const [index, row] of busy.entries()) {
      const job = jobOf(row);
      await this.jobs.send(DELIVER_JOB, job, job, { startAfter: comesBack[index] });
    }
  }

  /**
   * When a job that found its endpoint at its limit comes back: once a slot is likely free again,
   * judged by how long the endpoint's attempts take (their moving average, or how long the oldest
   * one has been running, whichever is longer; at least BUSY_RETRY_MS), spread over twice that so
   * the waiting jobs do not all come back at once. An endpoint that never answers holds its slots
   * for the whole timeout: its waiting jobs then come back every 10–20 s rather than every second,
   * and their fetches no longer eat into the other endpoints' deliveries (P17: the healthy endpoints
   * kept 0.88× of their throughput beside a dead one when it came back every second).
   */
  private busyDelay(endpointId: string): number {
    const now = performance.now();
    let oldest = 0;
    for (const attempt of this.running.values()) {
      if (attempt.endpointId === endpointId) oldest = Math.max(oldest, now - attempt.startedAt);
    }
    const typical = Math.max(BUSY_RETRY_MS, this.attemptMs.get(endpointId) ?? 0, oldest);
    return Math.round(typical * (1 + Math.random()));
  }

  private start(job: DeliverJob, row: AttemptRow): void {
    const { endpoint_id: endpointId, attempt } = row;
    const controller = new AbortController();
    const startedAt = performance.now();
    this.inFlightPerEndpoint.set(endpointId, (this.inFlightPerEndpoint.get(endpointId) ?? 0) + 1);
    const done = this.attempt(job, row, controller.signal)
      .catch((error: unknown) =>
        this.logger.error(`webhook delivery ${job.deliveryId} attempt ${attempt + 1} not recorded: ${(error as Error).message}`),
      )
      .finally(() => {
        this.running.delete(job.deliveryId);
        const left = (this.inFlightPerEndpoint.get(endpointId) ?? 1) - 1;
        if (left > 0) {
          this.inFlightPerEndpoint.set(endpointId, left);
          const took = performance.now() - startedAt;
          const typical = this.attemptMs.get(endpointId);
          this.attemptMs.set(endpointId, typical === undefined ? took : typical + DURATION_WEIGHT * (took - typical));
        } else {
          this.inFlightPerEndpoint.delete(endpointId);
          this.attemptMs.delete(endpointId);
        }
      });
    this.running.set(job.deliveryId, { controller, done, endpointId, startedAt });
  }

  private async attempt(job: DeliverJob, row: AttemptRow, signal: AbortSignal): Promise<void> {
    const outcome = row.endpoint_status === 'disabled' ? this.disabledOutcome(row) : await this.send(row, signal);
    if (outcome === null) return;
    await this.record(job, row, outcome);
  }

  private disabledOutcome(row: AttemptRow): Outcome {
    return {
      succeeded: false,
      responseStatus: null,
      error: 'The endpoint is disabled.',
      durationMs: 0,
      url: row.url,
      final: true,
    };
  }

  /** The signed POST; null when interrupted by shutdown (nothing recorded: it is tried again). */
  private async send(row: AttemptRow, signal: AbortSignal): Promise<Outcome | null> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      // Checked again now, after resolution, and the connection goes to an address just checked.
      const { url, addresses } = await this.urls.check(row.url);
      const timestamp = this.clock.now();
      const signatures = this.signingSecrets(row, timestamp).map((secret) =>
        new Webhook(secret).sign(row.event_id, timestamp, row.body),
      );
      const status = await this.sender.post({
        url,
        address: addresses[0],
        body: row.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'billing-api-webhooks/1',
          'webhook-id': row.event_id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signatures.join(' '),
        },
        timeoutMs: DELIVERY_TIMEOUT_MS,
        signal,
      });
      const succeeded = status >= 200 && status < 300;
      return {
        succeeded,
        responseStatus: status,
        error: succeeded ? null : `The endpoint answered ${status}.`,
        durationMs: elapsed(),
        url: row.url,
        final: false,
      };
    } catch (error) {
      if (error instanceof WebhookSendError && error.reason === 'aborted') return null;
      const code = (error as { code?: string }).code;
      const message = (error as Error).message;
      return {
        succeeded: false,
        responseStatus: null,
        error: (code === 'WEBHOOK_URL_NOT_ALLOWED' ? `WEBHOOK_URL_NOT_ALLOWED: ${message}` : message).slice(0, ERROR_MAX),
        durationMs: elapsed(),
        url: row.url,
        final: false,
      };
    }
  }

  /** The current secret, and the rotated-out one while its 24 hours last. */
  private signingSecrets(row: AttemptRow, now: Date): string[] {
    const secrets = [this.vault.open(row.secret_sealed)];
    if (row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now) {
      secrets.push(this.vault.open(row.previous_secret_sealed));
    }
    return secrets;
  }

  /**
   * The attempt's outcome and its log row in one statement; a success also ends the endpoint's
   * failure streak there, and commits on its own (one round trip). A failure queues the next
   * attempt and extends the streak in the same transaction.
   */
  private async record(job: DeliverJob, row: AttemptRow, outcome: Outcome): Promise<void> {
    const attempt = row.attempt + 1;
    const now = this.clock.now();
    const delay = outcome.succeeded || outcome.final ? null : retryDelayAfter(attempt);
    const next = delay === null ? null : new Date(now.getTime() + delay);
    const status = outcome.succeeded ? 'succeeded' : next === null ? 'failed' : 'pending';
    const write = (query: (text: string, values: unknown[]) => Promise<Array<{ recorded: number }>>) =>
      query(
        `WITH updated AS (
           UPDATE webhook_deliveries
              SET attempt = $4, status = $5, response_status = $6, duration_ms = $7, error = $8, next_attempt_at = $9,
                  lease_until = NULL, updated_at = $10
            WHERE organization_id = $1 AND id = $2 AND attempt = $3 AND status = 'pending'
            RETURNING id),
         logged AS (
           INSERT INTO webhook_delivery_attempts (organization_id, workspace_id, delivery_id, attempt, endpoint_id, event_id, url,
             succeeded, response_status, duration_ms, error, attempted_at)
           SELECT $1, $11, id, $4, $12, $13, $14, $15, $6, $7, $8, $10 FROM updated),
         streak_ended AS (
           UPDATE webhook_endpoints SET failing_since = NULL
            WHERE organization_id = $1 AND id = $12 AND failing_since IS NOT NULL AND $15 AND EXISTS (SELECT 1 FROM updated))
         SELECT count(*)::int AS recorded FROM updated`,
        [
          job.organizationId,
          job.deliveryId,
          row.attempt,
          attempt,
          status,
          outcome.responseStatus,
          outcome.durationMs,
          outcome.error,
          next,
          now,
          row.workspace_id,
          row.endpoint_id,
          row.event_id,
          outcome.url,
          outcome.succeeded,
        ],
      );
    if (outcome.succeeded || outcome.final) {
      await write((text, values) => this.dataSource.query(text, values));
      return;
    }
    await this.txHost.withTransaction(async () => {
      const [{ recorded }] = await write((text, values) => this.txHost.tx.query(text, values));
      // Another attempt (after this one's lease expired) recorded this step already.
      if (recorded === 0) return;
      if (next !== null) await this.jobs.send(DELIVER_JOB, job, job, { startAfter: next });
      await this.failed(job.organizationId, row, now);
    });
  }

  /** Extends the endpoint's failure streak; disables it once the streak reaches 3 days. */
  private async failed(organizationId: string, row: AttemptRow, now: Date): Promise<void> {
    const [[streak]]: [Array<{ failing_since: Date }>, number] = await this.txHost.tx.query(
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $3)
        WHERE organization_id = $1 AND id = $2 RETURNING failing_since`,
      [organizationId, row.endpoint_id, now],
    );
    if (!streak || now.getTime() - streak.failing_since.getTime() < DISABLE_AFTER_FAILING_MS) return;
    const [[disabled]]: [EndpointRow[], number] = await this.txHost.tx.query(
      `UPDATE webhook_endpoints
          SET status = 'disabled', disabled_reason = 'failing', disabled_at = $3, updated_at = $3
        WHERE organization_id = $1 AND id = $2 AND status = 'enabled'
        RETURNING ${ENDPOINT_COLUMNS}`,
      [organizationId, row.endpoint_id, now],
    );
    if (!disabled) return;
    this.logger.warn(
      `webhook endpoint ${row.endpoint_id} disabled: every delivery failed since ${streak.failing_since.toISOString()}`,
    );
    // The endpoint as its GET answers it now; delivered to the workspace's other endpoints that select it
    // (this one is disabled already, so it is not among them).
    await this.events.publish(
      { organizationId, workspaceId: row.workspace_id, workspaceMode: row.livemode ? 'live' : 'sandbox' },
      [{ type: 'webhook_endpoint.disabled', object: { ...webhookEndpointResponse(toView(disabled, now)) } }],
    );
  }

  /**
   * Queues again what no job will run: attempts whose lease expired (their server died mid-attempt)
   * and deliveries long due without a claim (their job was lost). A duplicate job is harmless: only
   * one claim of a delivery's step succeeds.
   */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const stranded: Array<{ organization_id: string; id: string; livemode: boolean }> = await this.dataSource.query(
      `SELECT organization_id, id, livemode FROM webhook_deliveries
        WHERE status = 'pending'
          AND ((lease_until IS NOT NULL AND lease_until <= $1) OR (lease_until IS NULL AND next_attempt_at <= $2))
        ORDER BY next_attempt_at LIMIT ${SWEEP_BATCH}`,
      [now, new Date(now.getTime() - UNCLAIMED_GRACE_MS)],
    );
    for (const delivery of stranded) {
      const tenant = jobTenantOfEvent(delivery.organization_id, delivery.livemode);
      await this.jobs.send<DeliverJob>(DELIVER_JOB, tenant, { ...tenant, deliveryId: delivery.id });
    }
    return stranded.length;
  }

  /** Drops what is older than the 30 days events are kept (deliveries and their log go with their payload). */
  async purge(): Promise<void> {
    const before = new Date(this.clock.now().getTime() - RETENTION_MS);
    await this.dataSource.query(
      `DELETE FROM webhook_event_payloads p
        WHERE p.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                           WHERE d.organization_id = p.organization_id AND d.event_id = p.event_id AND d.status = 'pending')`,
      [before],
    );
  }
}
