import { Command } from '@nestjs/cqrs';
import { BootstrapResult } from './bootstrap-organization.command';

/** Bootstraps a default organization only when the database holds none yet (first start). */
export class BootstrapIfEmptyCommand extends Command<BootstrapResult | null> {}
