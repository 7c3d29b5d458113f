import { Propagation, Transactional } from '@nestjs-cls/transactional';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { Clock, isRefusedWrite, JobQueue, jobTenantOf, Outbox } from '@app/shared-kernel';
import { PlanMigration } from '../../domain/plan-migration';
import type { TenantKey } from '../../domain/repositories';
import {
  PlanGoLiveListener,
  PlanMigrationRepository,
  SubscriptionRepository,
  type BatchPosition,
  type MovedSubscription,
} from '../../domain/subscriber-ports';
import { SubscriptionVersionChanged } from '../../domain/subscription';
import { VersionRecord } from '../../domain/version-line';
import { ModedTenant, modedTenantOf } from '../job-tenants';
import { CatalogEvents } from '../catalog-events';
import { GetSubscriptionsQuery } from '../subscriptions/get-subscriptions.query';

export const MIGRATION_RUN_JOB = 'catalog.migration-run';

export const MIGRATION_START_JOB = 'catalog.migration-start';

export const MIGRATION_SWEEP_JOB = 'catalog.migration-sweep';

/** The outcome of a subscription whose move the database refused (a constraint or a trigger). */
export const MOVE_REFUSED = 'SUBSCRIPTION_MOVE_REFUSED';

/** Migrations the sweep sends on per minute. */
const SWEEP_LIMIT = 1000;

/** Outcomes settled per transaction: their subscriptions are locked together, in id order. */
export const MIGRATION_BATCH_SIZE = 500;

/** Batches one run of the run job settles before it sends itself on: no migration holds a worker to its end. */
export const MIGRATION_BATCHES_PER_RUN = 2;

/**
 * A job the queue started by the database's clock while the application's clock still says "not
 * yet" is re-sent for the remaining time, within this bound; beyond it the clocks disagree (a
 * test's manual clock) and the job leaves the work to an explicit run or the next command.
 */
const CLOCK_SKEW_TOLERANCE_MS = 10_000;

interface MigrationJob extends ModedTenant {
  migrationId: string;
  /** The instant the job was sent for (ISO), when it was sent for later. */
  dueAt?: string;
}

function tenantOf(job: TenantKey): TenantKey {
  return { organizationId: job.organizationId, workspaceId: job.workspaceId };
}

/**
 * Runs migrations (model §4.8): a scheduled one is started at `scheduled_at` (its outcomes built
 * from the subscriptions ACTIVE then), and a running one has its due outcomes settled in batches
 * of 500, each batch one transaction that locks its subscriptions in id order. A settled outcome
 * is never pending again, so a rerun of any batch or job moves nobody twice.
 */
@Injectable()
export class MigrationRunner implements OnModuleInit {
  private readonly logger = new Logger(MigrationRunner.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly migrations: PlanMigrationRepository,
    private readonly subscriptions: SubscriptionRepository,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    private readonly events: CatalogEvents,
    private readonly queries: QueryBus,
  ) {}

  onModuleInit(): void {
    this.jobs.define<MigrationJob>({
      name: MIGRATION_RUN_JOB,
      handler: (job) => this.run(job),
      maxLatencySeconds: 1,
      concurrency: 2,
    });
    this.jobs.define<MigrationJob>({
      name: MIGRATION_START_JOB,
      handler: (job) => this.startScheduled(job),
      maxLatencySeconds: 1,
    });
    this.jobs.define({ name: MIGRATION_SWEEP_JOB, cron: '* * * * *', handler: async () => void (await this.sweep()) });
  }

  /**
   * The safety net behind the jobs: a migration whose job gave up (retries spent during a long
   * database outage, or clocks that disagreed) is sent on again, a minute after it was due.
   */
  async sweep(): Promise<number> {
    const overdue = await this.migrations.overdue(SWEEP_LIMIT);
    for (const migration of overdue) {
      if (migration.status === 'running') {
        await this.enqueueRun(migration, migration.id);
      } else {
        const job: MigrationJob = {
          organizationId: migration.organizationId,
          workspaceId: migration.workspaceId,
          migrationId: migration.id,
        };
        await this.jobs.send(MIGRATION_START_JOB, jobTenantOf(job), job, { singletonKey: migration.id });
      }
    }
    if (overdue.length > 0) this.logger.warn(`sent on ${overdue.length} migration(s) their jobs left behind`);
    return overdue.length;
  }

  /**
   * Sends the run job for `at` (now when omitted), inside the caller's transaction when there is one.
   * A tenant without its mode (the sweep's resends) runs as live work.
   */
  async enqueueRun(tenant: ModedTenant, migrationId: string, at?: Date): Promise<void> {
    const job: MigrationJob = { ...modedTenantOf(tenant), migrationId, dueAt: at?.toISOString() };
    await this.jobs.send(MIGRATION_RUN_JOB, jobTenantOf(job), job, {
      startAfter: at,
      singletonKey: `${migrationId}:${job.dueAt ?? 'now'}`,
    });
  }

  async enqueueStart(migration: PlanMigration, workspaceMode: ModedTenant['workspaceMode']): Promise<void> {
    const m = migration.snapshot;
    const job: MigrationJob = {
      organizationId: m.organizationId,
      workspaceId: m.workspaceId,
      workspaceMode,
      migrationId: m.id,
      dueAt: m.scheduledAt!.toISOString(),
    };
    await this.jobs.send(MIGRATION_START_JOB, jobTenantOf(job), job, { startAfter: m.scheduledAt!, singletonKey: m.id });
  }

  /**
   * The run job: the due outcomes settled, MIGRATION_BATCHES_PER_RUN batches at most (then it sends
   * itself on), then either complete or sent again for the next due one.
   */
  async run(job: MigrationJob): Promise<void> {
    // Each batch starts where the last ended; what another worker held is left to it, or to the next run.
    let after: BatchPosition | undefined;
    for (let batches = 0; ; batches += 1) {
      if (batches === MIGRATION_BATCHES_PER_RUN) {
        // Sent to the back of the queue: other organizations' migrations run in between.
        await this.enqueueRun(job, job.migrationId);
        return;
      }
      const batch = await this.settleIsolating(job, MIGRATION_BATCH_SIZE, after);
      if (batch.settled === 0) break;
      after = batch.last;
    }
    const next = await this.completeOrNextDue(job);
    if (!next) return;
    const wait = next.getTime() - this.clock.now().getTime();
    if (wait <= 0) {
      // Due outcomes another worker still holds: look again shortly.
      await this.enqueueRun(job, job.migrationId, new Date(this.clock.now().getTime() + 1000));
    } else if (job.dueAt !== next.toISOString()) {
      await this.enqueueRun(job, job.migrationId, next);
    } else if (wait <= CLOCK_SKEW_TOLERANCE_MS) {
      await this.enqueueRun(job, job.migrationId, new Date(next.getTime() + wait));
    } else {
      this.logger.warn(
        `migration ${job.migrationId}: the job came ${wait} ms before its outcomes are due by the application's clock`,
      );
    }
  }

  /** One batch (the first due outcomes) in its own transaction; returns how many it settled. */
  async settleBatch(job: MigrationJob): Promise<number> {
    return (await this.settle(job, MIGRATION_BATCH_SIZE)).settled;
  }

  /**
   * A batch the database refuses as a whole is split in halves until the refused subscription is
   * alone: it fails, with its code, and the others still move (a few transactions per refusal,
   * not one per subscription of the batch).
   */
  private async settleIsolating(
    job: MigrationJob,
    limit: number,
    after?: BatchPosition,
  ): Promise<{ settled: number; last?: BatchPosition }> {
    try {
      return await this.settle(job, limit, after);
    } catch (error) {
      if (!isRefusedWrite(error)) throw error;
      if (limit === 1) {
        const failed = await this.failFirstDue(job, after);
        this.logger.warn(
          `migration ${job.migrationId}: the move of subscription ${failed.last.subscriptionId} was refused: ${(error as Error).message}`,
        );
        return failed;
      }
    }
    const half = Math.ceil(limit / 2);
    const first = await this.settleIsolating(job, half, after);
    if (first.settled === 0) return first;
    const second = await this.settleIsolating(job, limit - half, first.last);
    return second.settled === 0 ? first : { settled: first.settled + second.settled, last: second.last };
  }

  @Transactional(Propagation.RequiresNew)
  private failFirstDue(job: MigrationJob, after?: BatchPosition): Promise<{ settled: number; last: BatchPosition }> {
    return this.migrations.failFirstDue(tenantOf(job), job.migrationId, this.clock.now(), MOVE_REFUSED, after);
  }

  @Transactional(Propagation.RequiresNew)
  private async settle(
    job: MigrationJob,
    limit: number,
    after?: BatchPosition,
  ): Promise<{ settled: number; last: BatchPosition }> {
    const tenant = tenantOf(job);
    const { settled, moved, target, last } = await this.migrations.settleBatch(
      tenant,
      job.migrationId,
      this.clock.now(),
      limit,
      after,
    );
    await this.outbox.addMany(
      moved.map(
        (move) =>
          new SubscriptionVersionChanged(
            tenant.organizationId,
            tenant.workspaceId,
            move.subscriptionId,
            move.customerId,
            target.planId,
            job.migrationId,
            move.fromVersionId,
            move.fromVersion,
            target.id,
            target.version,
            move.effectiveAt.toISOString(),
            move.prorationStrategy,
          ),
      ),
      tenant.organizationId,
    );
    await this.versionChanged(job, moved);
    return { settled, last };
  }

  /**
   * The public `subscription.version_changed` of each subscription the batch moved (beside the
   * outbox's, which tells billing): the subscription as its GET answers it now, read in one query.
   */
  private async versionChanged(job: MigrationJob, moved: readonly MovedSubscription[]): Promise<void> {
    if (moved.length === 0) return;
    const before = new Map(moved.map((move) => [move.subscriptionId, { id: move.fromVersionId, version: move.fromVersion }]));
    const views = await this.queries.execute(
      new GetSubscriptionsQuery(
        this.events.readerOf(job),
        moved.map((move) => move.subscriptionId),
      ),
    );
    await this.events.publishRead(
      job,
      views.map((view) => ({
        type: 'subscription.version_changed',
        object: { ...view },
        previousAttributes: { plan_version: before.get(view.id) },
      })),
    );
  }

  @Transactional(Propagation.RequiresNew)
  private completeOrNextDue(job: MigrationJob): Promise<Date | null> {
    return this.migrations.completeOrNextDue(tenantOf(job), job.migrationId, this.clock.now());
  }

  /** The start job: a scheduled migration whose time came builds its outcomes and runs. */
  async startScheduled(job: MigrationJob): Promise<void> {
    const started = await this.startIfDue(job);
    if (started) {
      await this.run(job);
      return;
    }
    const scheduledAt = job.dueAt ? new Date(job.dueAt) : undefined;
    const wait = scheduledAt ? scheduledAt.getTime() - this.clock.now().getTime() : 0;
    if (started === false && wait > 0 && wait <= CLOCK_SKEW_TOLERANCE_MS) {
      await this.jobs.send(
        MIGRATION_START_JOB,
        jobTenantOf(job),
        { ...job, dueAt: undefined },
        {
          startAfter: new Date(scheduledAt!.getTime() + wait),
        },
      );
    }
  }

  /**
   * Starts the migration if it is scheduled and due (in its own transaction, so a caller's refusal
   * keeps it started): true when started now, false when still scheduled and not due, undefined otherwise.
   */
  @Transactional(Propagation.RequiresNew)
  async startIfDue(tenant: TenantKey & { migrationId: string }): Promise<boolean | undefined> {
    const migration = await this.migrations.lock(tenantOf(tenant), tenant.migrationId);
    if (!migration || migration.snapshot.status !== 'scheduled') return undefined;
    const now = this.clock.now();
    if (!migration.isDue(now)) return false;
    const m = migration.snapshot;
    const target = await this.subscriptions.liveVersion(tenantOf(tenant), m.planId, m.targetVersion);
    migration.start(now);
    await this.migrations.save(migration);
    await this.migrations.buildOutcomes(migration, target!);
    await this.enqueueRun(tenant, m.id);
    return true;
  }
}

/**
 * The go-live seam (model §4.8): each plan version that went live gets a migration with trigger
 * "publish" holding one outcome per ACTIVE subscription that tracks latest, after older pending
 * automatic outcomes are closed as SUPERSEDED. Immediate subscribers are due at the go-live
 * instant, next_period ones at the end of the period then running; the run job moves them.
 */
@Injectable()
export class SubscriberMoves extends PlanGoLiveListener {
  constructor(
    private readonly migrations: PlanMigrationRepository,
    private readonly runner: MigrationRunner,
    private readonly clock: Clock,
  ) {
    super();
  }

  async wentLive(tenant: TenantKey, planId: string, versions: readonly VersionRecord[]): Promise<void> {
    for (const version of versions) {
      // A plan saved twice in one unit of work reports the same go-live twice: it moves subscribers once.
      if (await this.migrations.publishMigrationOf(tenant, version.id)) continue;
      const now = this.clock.now();
      for (const superseded of await this.migrations.supersedePending(tenant, planId, now)) {
        await this.migrations.completeOrNextDue(tenant, superseded, now);
      }
      // Nobody to move: no migration is recorded for this go-live.
      if (!(await this.migrations.hasLatestTrackers(tenant, planId))) continue;
      const migration = PlanMigration.request({
        ...tenantOf(tenant),
        planId,
        trigger: 'publish',
        mode: 'IMMEDIATE',
        target: version,
        prorationStrategy: 'create_prorations',
        scheduledAt: null,
        createdBy: version.createdBy,
        now,
      });
      await this.migrations.save(migration);
      await this.migrations.buildPublishOutcomes(migration, version.effectiveFrom ?? now);
      const next = await this.migrations.completeOrNextDue(tenant, migration.id, now);
      if (next) await this.runner.enqueueRun(tenant, migration.id, next.getTime() > now.getTime() ? next : undefined);
    }
  }
}
