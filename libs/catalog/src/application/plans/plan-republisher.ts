import { Transactional } from '@nestjs-cls/transactional';
import { Injectable } from '@nestjs/common';
import { AuditLog, Clock, isUuid, type Actor } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { PlanCascades } from '../plan-cascades';
import { PlanReleases } from '../plan-releases';
import { RepublishOutcome } from './republish-plans.command';

/** One plan of a bulk republish, in a transaction of its own. */
@Injectable()
export class PlanRepublisher {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly cascades: PlanCascades,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /**
   * Model §4.7: archived → PUBLISH_ENTITY_ARCHIVED; never published → unchanged (no version);
   * the head re-resolved at now equal to the head → unchanged; otherwise a `manual` version with
   * the head's content and the new resolution goes live. The working draft keeps its content and
   * id; only its number moves up. A refusal rolls this plan's transaction back.
   */
  @Transactional()
  async republish(actor: Actor, planId: string): Promise<RepublishOutcome> {
    const plan = isUuid(planId) ? await this.releases.load(actor, planId) : undefined;
    if (!plan) throw catalogNotFound('plan_ids', 'plan');
    if (plan.archived) throw CatalogErrors.PUBLISH_ENTITY_ARCHIVED.create('The plan is archived; nothing of it can go live.');
    if (!plan.line.head) {
      await this.plans.save(plan);
      return { plan_id: planId, status: 'unchanged', version: null, error: null };
    }
    const now = this.clock.now();
    const resolved = await this.cascades.resolveHead(actor, plan, now);
    if (resolved.outcome === 'refused') throw resolved.error;
    if (resolved.outcome === 'unchanged') {
      await this.plans.save(plan);
      return { plan_id: planId, status: 'unchanged', version: resolved.head.version, error: null };
    }
    const published = plan.republish({
      now,
      origin: 'manual',
      createdBy: createdByOf(actor),
      cascadeSource: null,
      resolution: resolved.resolution,
    });
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.republished',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { version_id: published.id, version: published.version },
    });
    return { plan_id: planId, status: 'republished', version: published.version, error: null };
  }
}
