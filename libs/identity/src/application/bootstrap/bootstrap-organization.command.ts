import { Command } from '@nestjs/cqrs';

export interface BootstrapResult {
  organization_id: string;
  workspaces: Array<{ id: string; slug: string; mode: 'live' | 'sandbox' }>;
  user_id: string | null;
  api_key: { id: string; secret: string };
}

/** An organization with its live and sandbox workspaces, an optional owner, and a root key. */
export class BootstrapOrganizationCommand extends Command<BootstrapResult> {
  constructor(
    readonly name: string,
    readonly owner?: { email: string; password: string },
  ) {
    super();
  }
}

/** Bootstraps a default organization only when the database holds none yet (first start). */
export class BootstrapIfEmptyCommand extends Command<BootstrapResult | null> {}
