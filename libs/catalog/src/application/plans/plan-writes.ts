import { Actor, isUniqueViolation, SharedErrors } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { Plan } from '../../domain/plan';
import { PlanRepository } from '../../domain/repositories';
import { PlanReleases } from '../plan-releases';

/** One external_id per workspace among non-deleted plans (the partial unique index's word). */
export async function savePlan(plans: PlanRepository, plan: Plan): Promise<void> {
  try {
    await plans.save(plan);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw SharedErrors.ALREADY_EXISTS.create('Another plan of this workspace has this external_id.', { param: 'external_id' });
  }
}

export async function loadPlan(releases: PlanReleases, actor: Actor, planId: string): Promise<Plan> {
  const plan = await releases.load(actor, planId);
  if (!plan) throw catalogNotFound(undefined, 'plan');
  return plan;
}
