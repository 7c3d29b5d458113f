import { Transactional } from '@nestjs-cls/transactional';
import { Injectable, Logger } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, DomainError, invalidParameter, isUuid } from '@app/shared-kernel';
import type { Actor } from '@app/shared-kernel';
import { catalogConflict, catalogNotFound } from '../domain/catalog-errors';
import { PlanRepository } from '../domain/repositories';
import { createdByOf } from './cost.handlers';
import { PlanCascades } from './plan-cascades';
import { PlanReleases } from './plan-releases';

export const REPUBLISH_MAX_PLANS = 100;

export interface RepublishOutcome {
  plan_id: string;
  status: 'republished' | 'unchanged' | 'failed';
  version: number | null;
  error: { code: string; message: string } | null;
}

/** `POST /v1/plans/republish`: re-resolve each plan's `latest` memberships at the products' heads now. */
export class RepublishPlansCommand extends Command<RepublishOutcome[]> {
  constructor(
    readonly actor: Actor,
    readonly planIds: string[],
  ) {
    super();
  }
}

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
    if (plan.archived) throw catalogConflict('PUBLISH_ENTITY_ARCHIVED', 'The plan is archived; nothing of it can go live.');
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

/**
 * Best effort per plan (the spec's "bulk republish"): each plan runs in its own transaction, in
 * input order, so one plan's refusal neither blocks nor undoes another's republish. This is the
 * one command that spans several transactions, on purpose.
 */
@CommandHandler(RepublishPlansCommand)
export class RepublishPlansHandler implements ICommandHandler<RepublishPlansCommand> {
  private readonly logger = new Logger(RepublishPlansHandler.name);

  constructor(private readonly republisher: PlanRepublisher) {}

  async execute({ actor, planIds }: RepublishPlansCommand): Promise<RepublishOutcome[]> {
    assertPlanIds(planIds);
    const outcomes: RepublishOutcome[] = [];
    for (const planId of planIds) {
      try {
        outcomes.push(await this.republisher.republish(actor, planId));
      } catch (error) {
        if (!(error instanceof DomainError))
          this.logger.error(`bulk republish of plan ${planId} failed: ${(error as Error).message}`);
        const refusal =
          error instanceof DomainError
            ? error
            : new DomainError('internal', 'INTERNAL_ERROR', 'An unexpected error occurred. It has been logged.');
        outcomes.push({
          plan_id: planId,
          status: 'failed',
          version: null,
          error: { code: refusal.code, message: refusal.message },
        });
      }
    }
    return outcomes;
  }
}

/** 1–100 distinct UUIDs (model §4.7), else 400 VALIDATION_ERROR. */
function assertPlanIds(planIds: string[]): void {
  if (planIds.length < 1 || planIds.length > REPUBLISH_MAX_PLANS) {
    throw invalidParameter('plan_ids', 'OUT_OF_RANGE', `plan_ids must hold 1 to ${REPUBLISH_MAX_PLANS} plan ids.`);
  }
  const bad = planIds.findIndex((id) => !isUuid(id));
  if (bad >= 0) throw invalidParameter(`plan_ids[${bad}]`, 'INVALID_FORMAT', 'plan_ids must be UUIDs.');
  const seen = new Set<string>();
  for (const [index, id] of planIds.entries()) {
    const key = id.toLowerCase();
    if (seen.has(key)) throw invalidParameter(`plan_ids[${index}]`, 'DUPLICATE', 'plan_ids must be distinct.');
    seen.add(key);
  }
}
