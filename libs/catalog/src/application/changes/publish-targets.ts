import { Injectable } from '@nestjs/common';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { PlanRepository, ProductRepository, TenantKey } from '../../domain/repositories';
import { ReleaseNotes, VersionLine, VersionRecord } from '../../domain/version-line';
import { ModedTenant, modedTenantOf } from '../job-tenants';
import { PlanReleases } from '../plan-releases';
import { Pin, PlanResolver } from '../plan-resolution';
import { Pricing } from '../pricing';
import { ProductReleases } from '../product-releases';

export type SubjectKind = 'plan' | 'product';

interface GoLive extends ReleaseNotes {
  stagedVersionId: string;
  changeId: string;
  now: Date;
  pins: Pin[];
}

/** A product or a plan, loaded for a change: what publishing, scheduling and canceling need of it. */
export interface PublishTarget {
  readonly kind: SubjectKind;
  readonly id: string;
  readonly line: VersionLine;
  publish(input: GoLive): Promise<VersionRecord>;
  schedule(input: GoLive & { scheduledFor: Date }): Promise<VersionRecord>;
  cancelRelease(versionId: string, now: Date): { dependents: VersionRecord[] };
  enqueue(changeId: string, at: Date): Promise<void>;
  save(): Promise<void>;
}

/**
 * Loads the subject of a change, with its due releases fired (catch-up), behind one interface:
 * a product resolves its formula, a plan its memberships; the version line and the ordered
 * publish guard are the same.
 */
@Injectable()
export class PublishTargets {
  constructor(
    private readonly products: ProductRepository,
    private readonly productReleases: ProductReleases,
    private readonly pricing: Pricing,
    private readonly plans: PlanRepository,
    private readonly planReleases: PlanReleases,
    private readonly resolver: PlanResolver,
  ) {}

  async load(tenant: ModedTenant, kind: SubjectKind, id: string): Promise<PublishTarget | undefined> {
    return kind === 'product' ? this.product(tenant, id) : this.plan(tenant, id);
  }

  /** Fires what is due in a transaction of its own (see ProductReleases.fireDue). */
  fireDue(tenant: TenantKey, kind: SubjectKind, id: string): Promise<void> {
    return kind === 'product' ? this.productReleases.fireDue(tenant, id) : this.planReleases.fireDue(tenant, id);
  }

  /** The staged version a change names: the working draft, or 409/404 for what it is instead. */
  async assertStagedVersion(tenant: TenantKey, target: PublishTarget, versionId: string): Promise<void> {
    if (target.line.row(versionId)) return;
    const repository = target.kind === 'product' ? this.products : this.plans;
    if (await repository.versionExists(tenant, target.id, versionId)) {
      throw CatalogErrors.PUBLISH_NOT_WORKING_DRAFT.create('That version is not the working draft.', {
        param: 'staged_version_id',
      });
    }
    throw catalogNotFound('staged_version_id', 'version');
  }

  private async product(tenant: ModedTenant, id: string): Promise<PublishTarget | undefined> {
    const product = await this.productReleases.load(tenant, id);
    if (!product) return undefined;
    const materialize = async (at: Date) => {
      const content = product.draftContent;
      return content && (await this.pricing.materialize(tenant, content, at));
    };
    return {
      kind: 'product',
      id: product.id,
      line: product.line,
      publish: async (input) => product.publishDraft({ ...input, materialization: (await materialize(input.now))! }),
      schedule: async (input) => product.scheduleDraft({ ...input, materialization: (await materialize(input.scheduledFor))! }),
      cancelRelease: (versionId, now) => product.cancelRelease(versionId, now),
      enqueue: (changeId, at) => this.productReleases.enqueue({ ...modedTenantOf(tenant), productId: product.id, changeId }, at),
      save: () => this.products.save(product),
    };
  }

  private async plan(tenant: ModedTenant, id: string): Promise<PublishTarget | undefined> {
    const plan = await this.planReleases.load(tenant, id);
    if (!plan) return undefined;
    const resolve = async (at: Date, pins: Pin[]) => {
      const draft = plan.line.draft;
      if (!draft) return undefined;
      await this.resolver.assertPins(tenant, plan.contentOf(draft.id)!, pins);
      return this.resolver.resolve(tenant, plan, plan.contentOf(draft.id)!, at, pins);
    };
    return {
      kind: 'plan',
      id: plan.id,
      line: plan.line,
      publish: async (input) => plan.publishDraft({ ...input, resolution: (await resolve(input.now, input.pins))! }),
      schedule: async (input) => plan.scheduleDraft({ ...input, resolution: (await resolve(input.scheduledFor, input.pins))! }),
      cancelRelease: (versionId, now) => plan.cancelRelease(versionId, now),
      enqueue: (changeId, at) => this.planReleases.enqueue({ ...modedTenantOf(tenant), planId: plan.id, changeId }, at),
      save: () => this.plans.save(plan),
    };
  }
}
