import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { VerificationReads } from '../application/verifications/verification-reads';
import { CustomerVerification } from '../domain/customer-verification';
import { toVerificationState, VERIFICATION_COLUMNS, VerificationRow } from './typeorm-customer-verification.repository';

@Injectable()
export class TypeOrmVerificationReads extends VerificationReads {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async find(
    scope: { organizationId: string; workspaceId: string },
    verificationId: string,
  ): Promise<CustomerVerification | undefined> {
    const rows: VerificationRow[] = await this.dataSource.query(
      `SELECT ${VERIFICATION_COLUMNS} FROM customer_verifications WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [scope.organizationId, scope.workspaceId, verificationId],
    );
    return rows[0] && CustomerVerification.restore(toVerificationState(rows[0]));
  }
}
