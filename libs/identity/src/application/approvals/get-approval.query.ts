import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ApprovalView } from './approval.view';

export class GetApprovalQuery extends Query<ApprovalView> {
  constructor(
    readonly actor: Actor,
    readonly approvalId: string,
  ) {
    super();
  }
}
