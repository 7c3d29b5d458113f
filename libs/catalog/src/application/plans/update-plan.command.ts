import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { PlanInput } from './plan-input';

export class UpdatePlanCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly input: PlanInput & { status?: string | null; expectedVersion?: number },
  ) {
    super();
  }
}
