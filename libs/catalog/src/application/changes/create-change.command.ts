import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface ChangeInput {
  subjectKind: 'plan' | 'product';
  subjectId: string;
  stagedVersionId: string;
  scheduledFor?: Date;
  pins?: { productId: string; productVersionId: string }[];
  releaseName?: string | null;
  releaseNote?: string | null;
}

export class CreateChangeCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: ChangeInput,
  ) {
    super();
  }
}
