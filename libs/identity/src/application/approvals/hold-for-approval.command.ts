import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ApprovalView } from './approval.view';

export type HoldResult = { held: false } | { held: true; approval: ApprovalView };

/**
 * Called by a context before applying a checkpointed action, inside its transaction: when the
 * workspace requires approval, an API key is refused and a human's request is held instead.
 */
export class HoldForApprovalCommand extends Command<HoldResult> {
  constructor(
    readonly actor: Actor,
    readonly checkpoint: string,
    readonly payload: Record<string, unknown>,
  ) {
    super();
  }
}
