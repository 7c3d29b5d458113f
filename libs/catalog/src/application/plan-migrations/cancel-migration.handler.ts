import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, isUuid } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { PlanMigrationRepository } from '../../domain/subscriber-ports';
import { MigrationRunner } from './migration-runner';
import { CancelMigrationCommand } from './cancel-migration.command';

@CommandHandler(CancelMigrationCommand)
export class CancelMigrationHandler implements ICommandHandler<CancelMigrationCommand> {
  constructor(
    private readonly migrations: PlanMigrationRepository,
    private readonly runner: MigrationRunner,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, migrationId }: CancelMigrationCommand): Promise<void> {
    if (!isUuid(migrationId)) throw catalogNotFound(undefined, 'migration');
    // A due migration has started whether or not its job ran: start it for good (own transaction), then refuse.
    await this.runner.startIfDue({ ...actor, migrationId });
    const migration = await this.migrations.lock(actor, migrationId);
    if (!migration) throw catalogNotFound(undefined, 'migration');
    migration.cancel(this.clock.now());
    await this.migrations.save(migration);
    await this.audit.record(actor, { action: 'plan.migration_canceled', resourceType: 'migration', resourceId: migration.id });
  }
}
