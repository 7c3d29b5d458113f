import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { type Db, PgBoss } from 'pg-boss';
import { notifyQueue } from 'pg-boss/dist/plans.js';
import { Clock } from '../clock';
import { PlatformOptions } from '../platform-options';
import { PlatformParts } from '../platform-parts';
import { DueBucketTracker } from './due-bucket-tracker';
import { fairPriority, JobTenant } from './fair-priority';

export type JobHandler<T extends object> = (data: T) => Promise<void>;

export interface JobDefinition<T extends object> {
  name: string;
  handler: JobHandler<T>;
  /**
   * A cron expression (per-minute resolution): a global recurring job (sweeps, purges), which is
   * no organization's work and is never sent; every other job is sent with its tenant.
   */
  cron?: string;
  retryLimit?: number;
  /**
   * How late a due job may start: the poll interval (≥ 0.5 s). NOTIFY wakes workers only when a
   * job is created, so jobs sent with `startAfter` are found by polling. Default 2 s.
   */
  maxLatencySeconds?: number;
  /** Jobs of this queue run at once in one instance (each in its own transaction). Default 1. */
  concurrency?: number;
  /**
   * Jobs of one organization this queue runs at once in one instance; unbounded by default. A
   * fan-out queue sets it below `concurrency`, so one organization's thousands of jobs leave slots,
   * and the instance's CPU, to the others' (P18). Per instance, held in memory: pg-boss's
   * database-wide limit lets concurrent fetches race past it.
   */
  perOrganizationConcurrency?: number;
}

export interface SendJobOptions {
  /** Precise deadlines (hold expiry, scheduled publishes) use this, not cron. */
  startAfter?: Date;
  /** At most one queued job per key. */
  singletonKey?: string;
}

/** One job of a fan-out sent at once (sendFair). */
export interface FairJob<T extends object> {
  data: T;
  startAfter?: Date;
  singletonKey?: string;
}

/** Jobs a worker slot fetches at once (see onApplicationBootstrap). */
export const FETCH_BATCH_SIZE = 2;
/** pg-boss's schema (its default). */
const BOSS_SCHEMA = 'pgboss';
const SHUTDOWN_TIMEOUT_MS = 10_000;
/**
 * A running job's worker refreshes its heartbeat this often; the supervisor (every
 * SUPERVISE_INTERVAL_SECONDS) fails the jobs of a worker that stopped beating, and they are retried.
 * Without it a job fetched by a server that was killed stayed `active` until pg-boss's expiry,
 * 15 minutes later (the crash script, npm run test:crash, found cascade tasks stuck that long).
 */
const HEARTBEAT_SECONDS = 10;
const SUPERVISE_INTERVAL_SECONDS = 10;

/**
 * A PostgreSQL-backed job queue (pg-boss) that any number of instances share. A job sent
 * while a transaction is active is written by that transaction: a rollback drops it too.
 */
@Injectable()
export class JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JobQueue.name);
  private readonly definitions = new Map<string, JobDefinition<object>>();
  private readonly dueBuckets = new DueBucketTracker();
  private boss?: PgBoss;

  constructor(
    private readonly options: PlatformOptions,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly parts: PlatformParts,
  ) {}

  /** Called by the owning module before the application boots (onModuleInit). */
  define<T extends object>(definition: JobDefinition<T>): void {
    if (this.definitions.has(definition.name)) throw new Error(`Job ${definition.name} is defined twice`);
    this.definitions.set(definition.name, definition as unknown as JobDefinition<object>);
  }

  /**
   * Sends one job of an organization. Its priority is its place among the organization's jobs of
   * this queue that this instance sent falling due in the same minute (see DueBucketTracker), so
   * many jobs of one organization due at one moment cannot delay another's, and sandbox work waits
   * for live work; no query, so no round trip is added to the sender's path.
   */
  async send<T extends object>(name: string, tenant: JobTenant, data: T, options: SendJobOptions = {}): Promise<void> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Job ${name} is not defined`);
    if (definition.cron) throw new Error(`Job ${name} is a global recurring job: it is scheduled, not sent`);
    const place = this.dueBuckets.place(name, tenant, options.startAfter, this.clock.now());
    const db = this.txHost.isTransactionActive() ? this.transactionDatabase() : undefined;
    await this.started().send(name, data, {
      startAfter: options.startAfter,
      singletonKey: options.singletonKey,
      group: { id: tenant.organizationId, tier: tenant.workspaceMode },
      priority: fairPriority(tenant.workspaceMode, place),
      db,
    });
    if (this.dueNow([options.startAfter])) await this.wakeWorkers(name, db);
  }

  /**
   * Sends several jobs of an organization, due now, in one statement (no query before it): each
   * gets its fair place as `send` gives a single job. pg-boss's insert wakes the workers at commit.
   */
  async sendMany<T extends object>(name: string, tenant: JobTenant, jobs: readonly T[]): Promise<void> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Job ${name} is not defined`);
    if (definition.cron) throw new Error(`Job ${name} is a global recurring job: it is scheduled, not sent`);
    if (jobs.length === 0) return;
    const now = this.clock.now();
    const db = this.txHost.isTransactionActive() ? this.transactionDatabase() : undefined;
    await this.started().insert(
      name,
      jobs.map((data) => ({
        data,
        group: { id: tenant.organizationId, tier: tenant.workspaceMode },
        priority: fairPriority(tenant.workspaceMode, this.dueBuckets.place(name, tenant, undefined, now)),
      })),
      { db },
    );
  }

  /**
   * Sends an organization's fan-out behind its own backlog in this queue rather than behind every
   * organization's (see fairPriority): a large fan-out cannot delay another organization's work,
   * and sandbox work waits for live work. Unlike send, it counts the backlog in the database (one
   * query per batch): exact across instances, for fan-outs whose batches several instances send.
   */
  async sendFair<T extends object>(name: string, tenant: JobTenant, jobs: FairJob<T>[]): Promise<void> {
    if (!this.definitions.has(name)) throw new Error(`Job ${name} is not defined`);
    if (jobs.length === 0) return;
    const db = this.txHost.isTransactionActive() ? this.transactionDatabase() : undefined;
    const backlog = await this.backlog(name, tenant, db);
    await this.started().insert(
      name,
      jobs.map((job, index) => ({
        data: job.data,
        startAfter: job.startAfter,
        singletonKey: job.singletonKey,
        group: { id: tenant.organizationId, tier: tenant.workspaceMode },
        priority: fairPriority(tenant.workspaceMode, backlog + index),
      })),
      { db },
    );
    if (this.dueNow(jobs.map((job) => job.startAfter))) await this.wakeWorkers(name, db);
  }

  /**
   * Whether a job sent with a start is due now by the app's clock. pg-boss wakes the workers
   * (NOTIFY) only for a job due by the database's transaction clock, which is the transaction's
   * start: a job due "now" by the app's clock, stamped later in the same transaction, looked
   * future to it and waited for the next poll (P18 measured half a second on a one-product cascade).
   */
  private dueNow(starts: (Date | undefined)[]): boolean {
    const now = this.clock.now().getTime();
    return starts.some((start) => start !== undefined && start.getTime() <= now);
  }

  /** Wakes the queue's workers on every instance; inside a transaction the NOTIFY goes out at its commit. */
  private async wakeWorkers(name: string, db: Db | undefined): Promise<void> {
    await (db ?? this.poolDatabase()).executeSql(notifyQueue(BOSS_SCHEMA, name));
  }

  /** The organization's jobs of this mode still waiting in the queue (the group pg-boss records). */
  private async backlog(name: string, tenant: JobTenant, db: Db | undefined): Promise<number> {
    const { rows } = await (db ?? this.poolDatabase()).executeSql(
      `SELECT count(*)::int AS count FROM pgboss.job
        WHERE name = $1 AND state < 'active' AND group_id = $2 AND group_tier = $3`,
      [name, tenant.organizationId, tenant.workspaceMode],
    );
    return (rows[0] as { count: number }).count;
  }

  /** Runs a job's handler now, in-process: for operators and tests, never for business flows. */
  async runNow(name: string, data: object = {}): Promise<void> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Job ${name} is not defined`);
    await definition.handler(data);
  }

  /** Starts the queue; its workers, recurring jobs and supervision only with the `job-workers` part. */
  async onApplicationBootstrap(): Promise<void> {
    const works = this.parts.has('job-workers');
    const boss = new PgBoss({
      connectionString: this.options.databaseUrl,
      application_name: 'billing-api-jobs',
      max: 3,
      useListenNotify: true,
      instanceName: 'billing-api',
      superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
      supervise: works,
      schedule: works,
    });
    boss.on('error', (error) => this.logger.error(`job queue error: ${error.message}`));
    await boss.start();
    for (const definition of this.definitions.values()) {
      const queue = {
        retryLimit: definition.retryLimit ?? 5,
        retryBackoff: true,
        notify: true,
        heartbeatSeconds: HEARTBEAT_SECONDS,
      };
      await boss.createQueue(definition.name, queue);
      // A queue created by an earlier version keeps its options until told otherwise.
      await boss.updateQueue(definition.name, queue);
      if (!works) continue;
      const poll = definition.maxLatencySeconds ?? 2;
      // Two jobs per fetch: a job of another organization that is first in the queue's order waits
      // for at most two jobs per slot fetched before it was sent, not ten (P18: a one-product cascade
      // behind a 10,000-product one). Two, not one, because pg-boss bursts (fetches the next batch
      // at once instead of after the poll interval) only for batches larger than one, so a fan-out
      // still drains at the handlers' pace.
      const options = {
        batchSize: FETCH_BATCH_SIZE,
        pollingIntervalSeconds: poll,
        notifyPollingIntervalSeconds: poll,
        burstWhenBatchFull: true,
        localConcurrency: definition.concurrency ?? 1,
        localGroupConcurrency: definition.perOrganizationConcurrency,
      };
      await boss.work<object>(definition.name, options, async (jobs) => {
        for (const job of jobs) await definition.handler(job.data);
      });
      if (definition.cron) await boss.schedule(definition.name, definition.cron);
    }
    this.boss = boss;
  }

  /** Running jobs finish while the application's pool is still open. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.boss?.stop({ graceful: true, timeout: SHUTDOWN_TIMEOUT_MS });
  }

  private started(): PgBoss {
    if (!this.boss) throw new Error('The job queue has not started yet');
    return this.boss;
  }

  private poolDatabase(): Db {
    return { executeSql: async (text: string, values?: unknown[]) => ({ rows: await this.txHost.tx.query(text, values) }) };
  }

  private transactionDatabase(): Db {
    const queryRunner = this.txHost.tx.queryRunner;
    if (!queryRunner) throw new Error('No query runner on the active transaction');
    return {
      executeSql: async (text: string, values?: unknown[]) => ({ rows: (await queryRunner.query(text, values, true)).records }),
    };
  }
}
