import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { CustomerVerification } from '../../domain/customer-verification';
import {
  toVerificationState,
  VERIFICATION_COLUMNS,
  VerificationRow,
} from '../../infrastructure/typeorm-customer-verification.repository';
import { verificationNotFound, verificationView } from './verification-lifecycle';
import { GetVerificationQuery } from './get-verification.query';
import { VerificationView } from './verification.view';

@QueryHandler(GetVerificationQuery)
export class GetVerificationHandler implements IQueryHandler<GetVerificationQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, verificationId }: GetVerificationQuery): Promise<VerificationView> {
    const rows: VerificationRow[] = isUuid(verificationId)
      ? await this.dataSource.query(
          `SELECT ${VERIFICATION_COLUMNS} FROM customer_verifications WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, verificationId],
        )
      : [];
    if (!rows[0]) throw verificationNotFound();
    return verificationView(CustomerVerification.restore(toVerificationState(rows[0])));
  }
}
