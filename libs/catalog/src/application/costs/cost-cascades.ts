import { Propagation, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Actor, Clock, DomainError, JobQueue, JobTenant, jobTenantOf, newId, preparedQuery } from '@app/shared-kernel';
import { CatalogErrors } from '../../domain/catalog-errors';
import { CostRevision } from '../../domain/cost-value';
import { OrgCost } from '../../domain/org-cost';
import { Materialization, MaterializedCost } from '../../domain/product';
import { ProductRepository, TenantKey } from '../../domain/repositories';
import { CreatedBy } from '../../domain/version-line';
import { PlanCascades } from '../plan-cascades';
import { CascadeRunOfTask, CascadeTaskKey, CascadeTaskStore } from '../cascade-task.store';
import { CascadeRuns } from '../cascade-runs/cascade-runs';
import { Pricing } from '../pricing';
import { ProductReleases } from '../product-releases';

export const CASCADE_RUN_JOB = 'catalog.cascade-run';

export const CASCADE_TASK_JOB = 'catalog.cascade-task';

function taskKey(job: { organizationId: string; workspaceId: string; runId: string; productId: string }): CascadeTaskKey {
  return {
    organizationId: job.organizationId,
    workspaceId: job.workspaceId,
    runId: job.runId,
    subjectKind: 'product',
    subjectId: job.productId,
  };
}

interface RunJob {
  organizationId: string;
  workspaceId: string;
  runId: string;
  /** Absent on jobs queued before fair scheduling: they run as live work. */
  workspaceMode?: JobTenant['workspaceMode'];
  /** The last consumer (product id) an earlier run of this job expanded. */
  after?: string;
}

interface TaskJob extends RunJob {
  productId: string;
}

interface RunRow {
  id: string;
  trigger: 'cost_value' | 'cost_retire';
  source_id: string;
  source_version_id: string;
  source_version: number;
  status: 'pending' | 'running' | 'completed';
  created_by: CreatedBy;
}

const MAX_TASK_ATTEMPTS = 5;

/** Consumers one run of the run job expands; the rest follow in the next run (no job monopolises a worker). */
export const CASCADE_EXPAND_PAGE = 100;

function sameMaterialization(
  head: { unitPrice: string | null; costs: MaterializedCost[] },
  next: Materialization & { ok: true },
): boolean {
  const canonical = (costs: MaterializedCost[]) =>
    costs
      .map((cost) => `${cost.scope}|${cost.key}|${cost.costId}|${cost.revisionNo}|${cost.value}`)
      .sort()
      .join('\n');
  return head.unitPrice === next.unitPrice && canonical(head.costs) === canonical(next.costs);
}

/**
 * Model §3.5: an ORG cost's value taking effect (or its retirement) republishes every ACTIVE
 * product whose head resolved it. The save runs a pre-flight and records a run; the run job
 * lists the consumers and enqueues one idempotent task per product, each its own transaction.
 */
@Injectable()
export class CostCascades implements OnModuleInit {
  private readonly logger = new Logger(CostCascades.name);

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly jobs: JobQueue,
    private readonly products: ProductRepository,
    private readonly releases: ProductReleases,
    private readonly pricing: Pricing,
    private readonly clock: Clock,
    private readonly planCascades: PlanCascades,
    private readonly tasks: CascadeTaskStore,
    private readonly runs: CascadeRuns,
  ) {}

  onModuleInit(): void {
    // Two runs expand side by side: one organization's page never holds up another's run.
    this.jobs.define<RunJob>({ name: CASCADE_RUN_JOB, handler: (job) => this.expand(job), maxLatencySeconds: 1, concurrency: 2 });
    // Tasks lock one product each, so several run side by side; the pool keeps room for requests.
    this.jobs.define<TaskJob>({
      name: CASCADE_TASK_JOB,
      handler: (job) => this.runTask(job),
      maxLatencySeconds: 1,
      concurrency: 6,
      perOrganizationConcurrency: 2,
    });
  }

  /** The consumers of an ORG cost now, by product id: ACTIVE products whose head has a row for it (transitive use included). */
  async consumers(
    tenant: TenantKey,
    costId: string,
    page: { after?: string | null; limit?: number } = {},
  ): Promise<{ product_id: string; product_version_id: string; version: number }[]> {
    return preparedQuery(
      this.txHost.tx,
      `SELECT p.id AS product_id, v.id AS product_version_id, v.version
         FROM product_version_costs e
         JOIN product_versions v ON v.organization_id = e.organization_id AND v.workspace_id = e.workspace_id
          AND v.id = e.product_version_id AND v.status = 'published'
         JOIN products p ON p.organization_id = v.organization_id AND p.workspace_id = v.workspace_id AND p.id = v.product_id
          AND p.status = 'active'
        WHERE e.organization_id = $1 AND e.workspace_id = $2 AND e.cost_id = $3 AND ($4::uuid IS NULL OR p.id > $4)
        ORDER BY p.id LIMIT $5`,
      [tenant.organizationId, tenant.workspaceId, costId, page.after ?? null, page.limit ?? null],
    );
  }

  /**
   * Re-materializes every consumer's head with the saved value at its effective instant: if any
   * would fail, 422 CONSUMER_WOULD_BREAK and the caller's transaction saves nothing.
   */
  async preflight(tenant: TenantKey, cost: OrgCost, effectiveAt: Date): Promise<void> {
    const broken: { product_id: string; code: string; message: string }[] = [];
    for (const consumer of await this.consumers(tenant, cost.id)) {
      const content = await this.products.headContent(tenant, consumer.product_version_id);
      const result = await this.pricing.materialize(tenant, content, effectiveAt);
      if (!result.ok) broken.push({ product_id: consumer.product_id, code: result.error.code, message: result.error.message });
    }
    if (broken.length > 0) {
      throw CatalogErrors.CONSUMER_WOULD_BREAK.create(
        `This value would break the price of ${broken.length} consuming product(s).`,
        {
          details: { products: broken.slice(0, 50) },
        },
      );
    }
  }

  /** Records the run in the saving transaction and enqueues it for the revision's effective instant. */
  async start(actor: Actor, cost: OrgCost, revision: CostRevision, trigger: RunRow['trigger']): Promise<string> {
    const runId = newId();
    await preparedQuery(
      this.txHost.tx,
      `INSERT INTO cascade_runs (organization_id, workspace_id, id, trigger, source_type, source_id, source_version_id, source_version,
         status, effective_at, created_by, created_at)
       VALUES ($1, $2, $3, $4, 'cost', $5, $6, $7, 'pending', $8, $9, $10)`,
      [
        actor.organizationId,
        actor.workspaceId,
        runId,
        trigger,
        cost.id,
        revision.id,
        revision.revisionNo,
        revision.effectiveAt,
        JSON.stringify({ type: actor.principal.type, id: actor.principal.id, via: 'cascade' }),
        this.clock.now(),
      ],
    );
    const job: RunJob = {
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      runId,
      workspaceMode: actor.workspaceMode,
    };
    await this.jobs.sendFair(CASCADE_RUN_JOB, jobTenantOf(job), [
      { data: job, startAfter: revision.effectiveAt, singletonKey: runId },
    ]);
    return runId;
  }

  /**
   * The run job: one task per consumer as they are now, each enqueued, CASCADE_EXPAND_PAGE
   * consumers per run of the job (it sends itself for the next page); rerunning adds nothing. The
   * run stays pending until its last page is expanded, so it never reads as completed half-way.
   */
  @Transactional()
  async expand(job: RunJob): Promise<void> {
    const [run] = await this.query<RunRow>(
      `SELECT id, trigger, source_id, source_version_id, source_version, status, created_by FROM cascade_runs
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`,
      [job.organizationId, job.workspaceId, job.runId],
    );
    if (!run || run.status !== 'pending') return;
    const found = await this.consumers(job, run.source_id, { after: job.after, limit: CASCADE_EXPAND_PAGE + 1 });
    const consumers = found.slice(0, CASCADE_EXPAND_PAGE);
    const now = this.clock.now();
    if (consumers.length > 0) {
      await this.query(
        `INSERT INTO cascade_tasks (organization_id, workspace_id, run_id, subject_kind, subject_id, status, updated_at)
         SELECT $1, $2, $3, 'product', unnest($4::uuid[]), 'pending', $5
         ON CONFLICT DO NOTHING`,
        [job.organizationId, job.workspaceId, job.runId, consumers.map((consumer) => consumer.product_id), now],
      );
    }
    const { organizationId, workspaceId, runId, workspaceMode } = job;
    await this.jobs.sendFair(
      CASCADE_TASK_JOB,
      jobTenantOf(job),
      consumers.map((consumer) => ({
        data: { organizationId, workspaceId, runId, workspaceMode, productId: consumer.product_id },
        singletonKey: `${runId}:${consumer.product_id}`,
      })),
    );
    if (found.length > CASCADE_EXPAND_PAGE) {
      const after = consumers[consumers.length - 1].product_id;
      await this.query(
        `UPDATE cascade_runs SET started_at = COALESCE(started_at, $4) WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        [organizationId, workspaceId, runId, now],
      );
      await this.jobs.sendFair(CASCADE_RUN_JOB, jobTenantOf(job), [
        { data: { ...job, after }, singletonKey: `${runId}:${after}` },
      ]);
      return;
    }
    await this.query(
      `UPDATE cascade_runs SET status = 'running', started_at = COALESCE(started_at, $4) WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [organizationId, workspaceId, runId, now],
    );
    // Nothing to republish, or every task already done: the run completes here (its row is held since the start).
    await this.runs.completeIfDone(job, runId);
  }

  /**
   * One product of a run, exactly once: a finished task does nothing. A deterministic refusal
   * is recorded in a fresh transaction (an errored version, the head keeps billing); a
   * transient one is thrown so the queue retries it.
   */
  async runTask(job: TaskJob): Promise<void> {
    try {
      await this.republish(job);
    } catch (error) {
      if (!(error instanceof DomainError)) {
        // Lock timeouts, deadlocks, a lost connection: the queue retries (with backoff) until the budget is spent.
        const attempts = await this.countAttempt(job);
        if (attempts < MAX_TASK_ATTEMPTS) throw error;
        this.logger.warn(
          `cascade task ${job.runId}/${job.productId} gave up after ${attempts} attempts: ${(error as Error).message}`,
        );
      }
      const refusal =
        error instanceof DomainError ? error : CatalogErrors.CASCADE_RETRIES_EXHAUSTED.create((error as Error).message);
      await this.recordError(job, refusal);
    }
  }

  @Transactional()
  private async republish(job: TaskJob): Promise<void> {
    const run = await this.lockTask(job);
    if (!run) return;
    const product = await this.releases.load(job, job.productId);
    const head = product?.line.head;
    if (!product || !head || product.archived) {
      await this.finishTask(job, 'unchanged', null);
      return;
    }
    const now = this.clock.now();
    const materialization = await this.pricing.materialize(job, product.contentOf(head.id)!, now, {
      retiredKeys: run.trigger === 'cost_retire' ? [await this.keyOf(job, run.source_id)] : undefined,
    });
    if (!materialization.ok) throw materialization.error;
    if (sameMaterialization(await this.products.materializedVersion(job, head.id), materialization)) {
      await this.products.save(product);
      await this.finishTask(job, 'unchanged', head);
      return;
    }
    const { published } = product.republish({
      now,
      createdBy: run.created_by,
      cascadeSource: {
        entityType: 'cost',
        entityId: run.source_id,
        versionId: run.source_version_id,
        version: run.source_version,
      },
      materialization,
    });
    await this.products.save(product);
    // Plans tracking this product follow it, once per plan for the whole cost cascade (model §3.5).
    await this.planCascades.afterProductGoLive(
      job,
      { productId: product.id, versionId: published!.id, version: published!.version },
      run.created_by,
      job.runId,
    );
    await this.finishTask(job, 'republished', published!);
  }

  @Transactional(Propagation.RequiresNew)
  private async recordError(job: TaskJob, error: DomainError): Promise<void> {
    const run = await this.lockTask(job);
    if (!run) return;
    const product = await this.releases.load(job, job.productId);
    let errored: { id: string; version: number } | null = null;
    if (product?.line.head) {
      errored =
        product.republish({
          now: this.clock.now(),
          createdBy: run.created_by,
          cascadeSource: {
            entityType: 'cost',
            entityId: run.source_id,
            versionId: run.source_version_id,
            version: run.source_version,
          },
          materialization: { ok: false, error },
        }).errored ?? null;
      await this.products.save(product);
    }
    await this.finishTask(job, 'errored', errored, error);
  }

  @Transactional(Propagation.RequiresNew)
  private async countAttempt(job: TaskJob): Promise<number> {
    return this.tasks.countAttempt(taskKey(job), MAX_TASK_ATTEMPTS);
  }

  private lockTask(job: TaskJob): Promise<CascadeRunOfTask | undefined> {
    return this.tasks.lock(taskKey(job));
  }

  private async finishTask(
    job: TaskJob,
    status: 'republished' | 'unchanged' | 'errored',
    version: { id: string; version: number } | null | undefined,
    error?: DomainError,
  ): Promise<void> {
    await this.tasks.finish(taskKey(job), status, version, error);
    await this.runs.afterTask(job, job.runId);
  }

  private async keyOf(tenant: TenantKey, costId: string): Promise<string> {
    const [row] = await this.query<{ key: string }>(
      `SELECT key FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [tenant.organizationId, tenant.workspaceId, costId],
    );
    return row.key;
  }

  private query<Row = Record<string, unknown>>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}
