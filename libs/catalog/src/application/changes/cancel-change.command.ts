import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class CancelChangeCommand extends Command<{
  changeId: string;
  dependents: { id: string; version: number; status: string }[];
}> {
  constructor(
    readonly actor: Actor,
    readonly changeId: string,
  ) {
    super();
  }
}
