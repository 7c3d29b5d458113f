import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { TermsInput, TrackMode } from '../../domain/membership-terms';

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
