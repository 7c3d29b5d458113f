import { Command } from '@nestjs/cqrs';
import type { Actor } from '@app/shared-kernel';

export const REPUBLISH_MAX_PLANS = 100;

export interface RepublishOutcome {
  plan_id: string;
  status: 'republished' | 'unchanged' | 'failed';
  version: number | null;
  error: { code: string; message: string } | null;
}

/** `POST /v1/plans/republish`: re-resolve each plan's `latest` memberships at the products' heads now. */
export class RepublishPlansCommand extends Command<RepublishOutcome[]> {
  constructor(
    readonly actor: Actor,
    readonly planIds: string[],
  ) {
    super();
  }
}
