import { Propagation, Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock, JobQueue, jobTenantOf } from '@app/shared-kernel';
import { Product } from '../domain/product';
import { ChangeRepository, ProductRepository, type TenantKey } from '../domain/repositories';
import type { ModedTenant } from './job-tenants';
import { fireDueReleases } from './due-releases';
import { PlanCascades } from './plan-cascades';
import { Pricing } from './pricing';

export const FIRE_PRODUCT_RELEASE_JOB = 'catalog.fire-product-release';

interface FireReleaseJob extends ModedTenant {
  productId: string;
  changeId: string;
}

/**
 * Loading a product for a command fires its due releases first (catch-up), in the command's
 * transaction and with the release job's code, so no command acts on an outdated head. The job
 * does the same at `scheduled_for`; whichever locks the product first fires, the other finds
 * nothing due.
 */
@Injectable()
export class ProductReleases implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly products: ProductRepository,
    private readonly changes: ChangeRepository,
    private readonly pricing: Pricing,
    private readonly clock: Clock,
    private readonly planCascades: PlanCascades,
  ) {}

  onModuleInit(): void {
    this.jobs.define<FireReleaseJob>({ name: FIRE_PRODUCT_RELEASE_JOB, handler: (job) => this.fire(job), maxLatencySeconds: 1 });
  }

  /** Locks the product and brings it up to date; the caller saves it. */
  async load(tenant: TenantKey, productId: string): Promise<Product | undefined> {
    const product = await this.products.lock(tenant, productId);
    if (product) await this.catchUp(tenant, product);
    return product;
  }

  /** Enqueued in the scheduling transaction: a rollback drops the job too. */
  async enqueue(job: FireReleaseJob, at: Date): Promise<void> {
    await this.jobs.send(FIRE_PRODUCT_RELEASE_JOB, jobTenantOf(job), job, { startAfter: at, singletonKey: job.changeId });
  }

  @Transactional()
  async fire(job: FireReleaseJob): Promise<void> {
    const product = await this.load(job, job.productId);
    if (product) await this.products.save(product);
  }

  /**
   * Fires the product's due releases in a transaction of its own, committed whatever becomes of
   * the caller's: a command refused because of what catch-up did must not roll the catch-up back.
   */
  @Transactional(Propagation.RequiresNew)
  async fireDue(tenant: TenantKey, productId: string): Promise<void> {
    const product = await this.load(tenant, productId);
    if (product) await this.products.save(product);
  }

  private async catchUp(tenant: TenantKey, product: Product): Promise<void> {
    const published = await fireDueReleases(
      tenant,
      product,
      (release) => this.pricing.materialize(tenant, product.contentOf(release.id)!, release.scheduledFor!),
      this.changes,
      this.clock.now(),
    );
    // A fired release is a go-live like any other: plans tracking the product follow (model §3.5).
    for (const version of published) {
      const change = version.changeId ? await this.changes.lock(tenant, version.changeId) : undefined;
      const createdBy = change?.snapshot.createdBy ?? version.createdBy;
      await this.planCascades.afterProductGoLive(
        tenant,
        { productId: product.id, versionId: version.id, version: version.version },
        createdBy,
      );
    }
  }
}
