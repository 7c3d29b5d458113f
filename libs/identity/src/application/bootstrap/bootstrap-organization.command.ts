import { Command } from '@nestjs/cqrs';

export interface BootstrapResult {
  organization_id: string;
  workspaces: Array<{ id: string; slug: string; mode: 'live' | 'sandbox' }>;
  user_id: string | null;
  /** The live root key (sk_live, every scope). */
  api_key: { id: string; secret: string };
  /** The sandbox root key (sk_test, every scope): test data, test helpers and test cards. */
  sandbox_api_key: { id: string; secret: string };
}

/** An organization with its live and sandbox workspaces, an optional owner, and a root key for each mode. */
export class BootstrapOrganizationCommand extends Command<BootstrapResult> {
  constructor(
    readonly name: string,
    readonly owner?: { email: string; password: string },
  ) {
    super();
  }
}
