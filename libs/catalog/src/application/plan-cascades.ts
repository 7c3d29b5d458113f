import { Propagation, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, JobQueue, JobTenant, jobTenantOf, newId, preparedQuery } from '@app/shared-kernel';
import { Plan, PlanResolution } from '../domain/plan';
import { PlanRepository, TenantKey } from '../domain/repositories';
import { CascadeSource, CreatedBy, VersionRecord } from '../domain/version-line';
import { PlanReleases } from './plan-releases';
import { ModedTenant, modedTenantOf } from './job-tenants';
import { PlanResolver } from './plan-resolution';
import { CascadeRunOfTask, CascadeTaskKey, CascadeTaskStore } from './cascade-task.store';
import { CascadeRuns } from './cascade-runs/cascade-runs';
import { CatalogErrors } from '../domain/catalog-errors';

export const PLAN_CASCADE_TASK_JOB = 'catalog.plan-cascade-task';

/** A plan task starts this long after the go-live that enqueued it, so a plan fed by several products moves once. */
export const PLAN_CASCADE_DELAY_MS = 2_000;

const MAX_TASK_ATTEMPTS = 5;

function planTaskKey(job: PlanTaskJob): CascadeTaskKey {
  return {
    organizationId: job.organizationId,
    workspaceId: job.workspaceId,
    runId: job.runId,
    subjectKind: 'plan',
    subjectId: job.planId,
  };
}

export interface PlanTaskJob {
  organizationId: string;
  workspaceId: string;
  runId: string;
  planId: string;
  /** Absent on jobs queued before fair scheduling: they run as live work. */
  workspaceMode?: JobTenant['workspaceMode'];
  /** The product version whose go-live enqueued the task: the cascade source of the plan version it makes. */
  source: { productId: string; versionId: string; version: number };
}

/** A product version that has just gone live. */
export interface ProductGoLive {
  productId: string;
  versionId: string;
  version: number;
}

/** The head's `latest` memberships re-resolved now: unchanged, a resolution to go live, or the refusal. */
export type HeadResolution =
  | { outcome: 'unchanged'; head: VersionRecord }
  | { outcome: 'changed'; head: VersionRecord; resolution: PlanResolution & { ok: true } }
  | { outcome: 'refused'; error: DomainError };

/**
 * Model §3.5 "Into plans" and §4.7: a plan whose head holds a product with live track mode
 * `latest` follows that product's head. Every product go-live — publish-now, a fired release, a
 * cost cascade — enqueues one task per such plan, in the go-live's own transaction; each task
 * locks its plan, catches up, re-resolves the head's `latest` memberships at now and ends
 * `unchanged` or with a `cascade` version. Bulk republish runs the same re-resolution.
 */
@Injectable()
export class PlanCascades implements OnModuleInit {
  private readonly logger = new Logger(PlanCascades.name);

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly jobs: JobQueue,
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly resolver: PlanResolver,
    private readonly clock: Clock,
    private readonly tasks: CascadeTaskStore,
    private readonly runs: CascadeRuns,
  ) {}

  onModuleInit(): void {
    this.jobs.define<PlanTaskJob>({
      name: PLAN_CASCADE_TASK_JOB,
      handler: (job) => this.runTask(job),
      maxLatencySeconds: 1,
      concurrency: 2,
    });
  }

  /**
   * Called in the transaction where a product version went live. Inside a cost cascade
   * (`rootRunId`), the plan's task joins that run, once per plan: a pending task this
   * transaction can lock has not started, so it will read this go-live (it waits for our commit);
   * a task already running or done gets a run of this go-live's own. Returns that run's id, if any.
   */
  async afterProductGoLive(
    tenant: ModedTenant,
    source: ProductGoLive,
    createdBy: CreatedBy,
    rootRunId?: string,
  ): Promise<string | undefined> {
    const plans = await this.query<{ plan_id: string }>(
      `SELECT p.id AS plan_id
         FROM plan_product_tracking t
         JOIN plans p ON p.organization_id = t.organization_id AND p.workspace_id = t.workspace_id AND p.id = t.plan_id
          AND p.deleted_at IS NULL AND p.status <> 'archived' AND p.head_version_id IS NOT NULL
        WHERE t.organization_id = $1 AND t.workspace_id = $2 AND t.product_id = $3 AND t.track_mode = 'latest'
          AND EXISTS (SELECT 1 FROM plan_version_products m WHERE m.organization_id = p.organization_id AND m.workspace_id = p.workspace_id
                AND m.plan_version_id = p.head_version_id AND m.product_id = t.product_id)
        ORDER BY p.id`,
      [tenant.organizationId, tenant.workspaceId, source.productId],
    );
    const startAfter = new Date(this.clock.now().getTime() + PLAN_CASCADE_DELAY_MS);
    let ownRun: string | undefined;
    for (const { plan_id: planId } of plans) {
      if (rootRunId && (await this.joinRun(tenant, rootRunId, planId, source, startAfter))) continue;
      ownRun ??= await this.startRun(tenant, source, createdBy, rootRunId);
      await this.insertTask(tenant, ownRun, planId);
      await this.enqueue({ ...modedTenantOf(tenant), runId: ownRun, planId, source }, startAfter);
    }
    return ownRun;
  }

  /**
   * The head's content re-resolved at `now`: `latest` memberships take their product's head,
   * the others keep what the head resolved. All equal → unchanged.
   */
  async resolveHead(tenant: TenantKey, plan: Plan, now: Date): Promise<HeadResolution> {
    const head = plan.line.head!;
    const content = plan.contentOf(head.id)!;
    const current = await this.query<{ product_id: string; product_version_id: string | null }>(
      `SELECT product_id, product_version_id FROM plan_version_products WHERE organization_id = $1 AND workspace_id = $2 AND plan_version_id = $3`,
      [tenant.organizationId, tenant.workspaceId, head.id],
    );
    const resolvedBefore = new Map(current.map((row) => [row.product_id, row.product_version_id]));
    const pins = content.memberships
      .filter(
        (membership) => plan.trackingOf(membership.productId)?.trackMode === 'pinned' && resolvedBefore.get(membership.productId),
      )
      .map((membership) => ({ productId: membership.productId, productVersionId: resolvedBefore.get(membership.productId)! }));
    const resolution = await this.resolver.resolve(tenant, plan, content, now, pins);
    if (!resolution.ok) return { outcome: 'refused', error: resolution.error };
    const same = resolution.memberships.every(
      (membership) => resolvedBefore.get(membership.productId) === membership.productVersionId,
    );
    return same ? { outcome: 'unchanged', head } : { outcome: 'changed', head, resolution };
  }

  /** One plan of a run, exactly once; deterministic refusals leave an errored version, transient ones retry. */
  async runTask(job: PlanTaskJob): Promise<void> {
    try {
      await this.cascade(job);
    } catch (error) {
      if (!(error instanceof DomainError)) {
        const attempts = await this.countAttempt(job);
        if (attempts < MAX_TASK_ATTEMPTS) throw error;
        this.logger.warn(
          `plan cascade task ${job.runId}/${job.planId} gave up after ${attempts} attempts: ${(error as Error).message}`,
        );
      }
      const refusal =
        error instanceof DomainError ? error : CatalogErrors.CASCADE_RETRIES_EXHAUSTED.create((error as Error).message);
      await this.recordError(job, refusal);
    }
  }

  @Transactional()
  private async cascade(job: PlanTaskJob): Promise<void> {
    const task = await this.lockTask(job);
    if (!task) return;
    const plan = await this.releases.load(job, job.planId);
    if (!plan || plan.archived || !plan.line.head) {
      if (plan) await this.plans.save(plan);
      await this.finishTask(job, 'unchanged', plan?.line.head ?? null);
      return;
    }
    const resolved = await this.resolveHead(job, plan, this.clock.now());
    if (resolved.outcome === 'refused') throw resolved.error;
    if (resolved.outcome === 'unchanged') {
      await this.plans.save(plan);
      await this.finishTask(job, 'unchanged', resolved.head);
      return;
    }
    const published = plan.republish({
      now: this.clock.now(),
      origin: 'cascade',
      createdBy: task.created_by,
      cascadeSource: sourceOf(job),
      resolution: resolved.resolution,
    });
    await this.plans.save(plan);
    await this.finishTask(job, 'republished', published);
  }

  @Transactional(Propagation.RequiresNew)
  private async recordError(job: PlanTaskJob, error: DomainError): Promise<void> {
    const task = await this.lockTask(job);
    if (!task) return;
    const plan = await this.releases.load(job, job.planId);
    const errored =
      plan?.recordErroredCascade({ now: this.clock.now(), createdBy: task.created_by, cascadeSource: sourceOf(job), error }) ??
      null;
    if (plan) await this.plans.save(plan);
    await this.finishTask(job, 'errored', errored, error);
  }

  private async joinRun(
    tenant: ModedTenant,
    runId: string,
    planId: string,
    source: ProductGoLive,
    startAfter: Date,
  ): Promise<boolean> {
    const inserted = await this.query(
      `INSERT INTO cascade_tasks (organization_id, workspace_id, run_id, subject_kind, subject_id, status, updated_at)
       VALUES ($1, $2, $3, 'plan', $4, 'pending', $5) ON CONFLICT DO NOTHING RETURNING subject_id`,
      [tenant.organizationId, tenant.workspaceId, runId, planId, this.clock.now()],
    );
    if (inserted.length > 0) {
      await this.enqueue({ ...modedTenantOf(tenant), runId, planId, source }, startAfter);
      return true;
    }
    // Locked until our commit: the task, when it starts, reads this go-live.
    const waiting = await this.query(
      `SELECT 1 FROM cascade_tasks WHERE organization_id = $1 AND workspace_id = $2 AND run_id = $3 AND subject_kind = 'plan' AND subject_id = $4
          AND status = 'pending' FOR UPDATE SKIP LOCKED`,
      [tenant.organizationId, tenant.workspaceId, runId, planId],
    );
    return waiting.length > 0;
  }

  private async startRun(
    tenant: TenantKey,
    source: ProductGoLive,
    createdBy: CreatedBy,
    rootRunId: string | undefined,
  ): Promise<string> {
    const runId = newId();
    const now = this.clock.now();
    await this.query(
      `INSERT INTO cascade_runs (organization_id, workspace_id, id, trigger, source_type, source_id, source_version_id, source_version,
         status, effective_at, created_by, created_at, started_at, root_run_id)
       VALUES ($1, $2, $3, 'product_go_live', 'product', $4, $5, $6, 'running', $7, $8, $7, $7, $9)`,
      [
        tenant.organizationId,
        tenant.workspaceId,
        runId,
        source.productId,
        source.versionId,
        source.version,
        now,
        JSON.stringify({ type: createdBy.type, id: createdBy.id, via: 'cascade' }),
        rootRunId ?? null,
      ],
    );
    return runId;
  }

  private async insertTask(tenant: TenantKey, runId: string, planId: string): Promise<void> {
    await this.query(
      `INSERT INTO cascade_tasks (organization_id, workspace_id, run_id, subject_kind, subject_id, status, updated_at)
       VALUES ($1, $2, $3, 'plan', $4, 'pending', $5) ON CONFLICT DO NOTHING`,
      [tenant.organizationId, tenant.workspaceId, runId, planId, this.clock.now()],
    );
  }

  private async enqueue(job: PlanTaskJob, startAfter: Date): Promise<void> {
    await this.jobs.sendFair(PLAN_CASCADE_TASK_JOB, jobTenantOf(job), [
      { data: job, startAfter, singletonKey: `${job.runId}:plan:${job.planId}` },
    ]);
  }

  @Transactional(Propagation.RequiresNew)
  private async countAttempt(job: PlanTaskJob): Promise<number> {
    return this.tasks.countAttempt(planTaskKey(job), MAX_TASK_ATTEMPTS);
  }

  /** The pending task, locked, with its run's principal; undefined when it already finished. */
  private lockTask(job: PlanTaskJob): Promise<CascadeRunOfTask | undefined> {
    return this.tasks.lock(planTaskKey(job));
  }

  private async finishTask(
    job: PlanTaskJob,
    status: 'republished' | 'unchanged' | 'errored',
    version: { id: string; version: number } | null,
    error?: DomainError,
  ): Promise<void> {
    await this.tasks.finish(planTaskKey(job), status, version, error);
    await this.runs.afterTask(job, job.runId);
  }

  private query<Row = Record<string, unknown>>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}

function sourceOf(job: PlanTaskJob): CascadeSource {
  return { entityType: 'product', entityId: job.source.productId, versionId: job.source.versionId, version: job.source.version };
}
