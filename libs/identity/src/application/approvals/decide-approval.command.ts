import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ApprovalView } from './approval.view';

export class DecideApprovalCommand extends Command<ApprovalView> {
  constructor(
    readonly actor: Actor,
    readonly approvalId: string,
    readonly decision: 'approve' | 'reject',
    readonly reason: string | undefined,
  ) {
    super();
  }
}
