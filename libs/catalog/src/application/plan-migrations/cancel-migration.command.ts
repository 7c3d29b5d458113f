import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class CancelMigrationCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly migrationId: string,
  ) {
    super();
  }
}
