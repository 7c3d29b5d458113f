import { Transactional } from '@nestjs-cls/transactional';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { OrganizationRepository } from '../../domain/repositories';
import { BootstrapIfEmptyCommand } from './bootstrap-if-empty.command';
import { BootstrapOrganizationCommand, BootstrapResult } from './bootstrap-organization.command';

const BOOTSTRAP_LOCK_KEY = 7_210_441_998_003;

@CommandHandler(BootstrapIfEmptyCommand)
export class BootstrapIfEmptyHandler implements ICommandHandler<BootstrapIfEmptyCommand> {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly commands: CommandBus,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  /** Serialised across instances starting together: only one of them bootstraps. */
  @Transactional()
  async execute(): Promise<BootstrapResult | null> {
    await this.txHost.tx.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_KEY]);
    if ((await this.organizations.count()) > 0) return null;
    return this.commands.execute(new BootstrapOrganizationCommand('Default organization'));
  }
}
