import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { PlanInput } from './plan-input';

export class CreatePlanCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: PlanInput,
  ) {
    super();
  }
}
