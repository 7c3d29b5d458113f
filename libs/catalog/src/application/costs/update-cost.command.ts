import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface CostUpdateInput {
  amount?: string | null;
  expression?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  translations?: Record<string, unknown> | null;
  requiresContinuousCoverage?: boolean | null;
  saveAsDraft?: boolean | null;
  effectiveAt?: Date | null;
}

export class UpdateCostCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
    readonly input: CostUpdateInput,
  ) {
    super();
  }
}
