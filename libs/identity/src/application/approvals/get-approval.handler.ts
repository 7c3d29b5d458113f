import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { ApprovalView } from './approval.view';
import { GetApprovalQuery } from './get-approval.query';
import { ApprovalRow, COLUMNS, approvalNotFound, toView } from './approval-rows';

@QueryHandler(GetApprovalQuery)
export class GetApprovalHandler implements IQueryHandler<GetApprovalQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, approvalId }: GetApprovalQuery): Promise<ApprovalView> {
    const [row]: ApprovalRow[] = isUuid(approvalId)
      ? await this.dataSource.query(
          `SELECT ${COLUMNS} FROM approval_requests WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, approvalId],
        )
      : [];
    if (!row) throw approvalNotFound();
    return toView(row);
  }
}
