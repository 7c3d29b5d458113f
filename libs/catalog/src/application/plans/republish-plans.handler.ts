import { Logger } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError, invalidParameter, isUuid, SharedErrors } from '@app/shared-kernel';
import { REPUBLISH_MAX_PLANS, RepublishOutcome, RepublishPlansCommand } from './republish-plans.command';
import { PlanRepublisher } from './plan-republisher';

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
            : SharedErrors.INTERNAL_ERROR.create('An unexpected error occurred. It has been logged.');
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
