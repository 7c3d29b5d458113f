import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TermsInput, TrackMode } from '../domain/membership-terms';
import { PlanDetails } from '../domain/plan-details';

/** Plan fields as the API sends them; undefined: not sent; null: leave unchanged (create: none). */
export type PlanInput = { [K in keyof PlanDetails]?: PlanDetails[K] | null } & { priceCadenceUnit?: string | null };

export class CreatePlanCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: PlanInput,
  ) {
    super();
  }
}

export class UpdatePlanCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly input: PlanInput & { status?: string | null; expectedVersion?: number },
  ) {
    super();
  }
}

export class DeletePlanCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}

export class CopyPlanCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly name: string | undefined,
  ) {
    super();
  }
}

export class OpenPlanDraftCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly baseVersionId: string | undefined,
  ) {
    super();
  }
}

export class DiscardPlanDraftCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
  ) {
    super();
  }
}

export class AddPlanProductCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly productId: string,
    readonly terms: TermsInput,
    readonly trackMode: TrackMode | undefined,
  ) {
    super();
  }
}

export class UpdatePlanProductCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly productId: string,
    readonly terms: TermsInput,
    readonly groups: { band?: boolean; allowance?: boolean },
    readonly trackMode: TrackMode | undefined,
  ) {
    super();
  }
}

export class RemovePlanProductCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly productId: string,
  ) {
    super();
  }
}

export class AnnotatePlanVersionCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
    readonly notes: { releaseName?: string; releaseNote?: string },
  ) {
    super();
  }
}
