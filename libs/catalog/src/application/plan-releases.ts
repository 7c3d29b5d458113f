import { Propagation, Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock, JobQueue, jobTenantOf } from '@app/shared-kernel';
import { Plan } from '../domain/plan';
import { ChangeRepository, PlanRepository, type TenantKey } from '../domain/repositories';
import type { ModedTenant } from './job-tenants';
import { fireDueReleases } from './due-releases';
import { PlanResolver } from './plan-resolution';

export const FIRE_PLAN_RELEASE_JOB = 'catalog.fire-plan-release';

interface FireReleaseJob extends ModedTenant {
  planId: string;
  changeId: string;
}

/** Plans' catch-up and release job: as ProductReleases does for products (see there). */
@Injectable()
export class PlanReleases implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly plans: PlanRepository,
    private readonly changes: ChangeRepository,
    private readonly resolver: PlanResolver,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.jobs.define<FireReleaseJob>({ name: FIRE_PLAN_RELEASE_JOB, handler: (job) => this.fire(job), maxLatencySeconds: 1 });
  }

  /** Locks the plan and fires its due releases; the caller saves it. */
  async load(tenant: TenantKey, planId: string): Promise<Plan | undefined> {
    const plan = await this.plans.lock(tenant, planId);
    if (plan) {
      await fireDueReleases(
        tenant,
        plan,
        (release, change) =>
          this.resolver.resolve(tenant, plan, plan.contentOf(release.id)!, release.scheduledFor!, change?.snapshot.pins ?? []),
        this.changes,
        this.clock.now(),
      );
    }
    return plan;
  }

  async enqueue(job: FireReleaseJob, at: Date): Promise<void> {
    await this.jobs.send(FIRE_PLAN_RELEASE_JOB, jobTenantOf(job), job, { startAfter: at, singletonKey: job.changeId });
  }

  @Transactional()
  async fire(job: FireReleaseJob): Promise<void> {
    const plan = await this.load(job, job.planId);
    if (plan) await this.plans.save(plan);
  }

  /** Due releases fired in a transaction of their own, kept whatever becomes of the caller's. */
  @Transactional(Propagation.RequiresNew)
  async fireDue(tenant: TenantKey, planId: string): Promise<void> {
    const plan = await this.load(tenant, planId);
    if (plan) await this.plans.save(plan);
  }
}
