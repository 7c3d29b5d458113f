import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HoldReads, HoldScope } from '../application/holds/hold-reads';
import { Hold } from '../domain/hold';
import { HOLD_COLUMNS, HoldRow, toHold } from './typeorm-hold.repository';

@Injectable()
export class TypeOrmHoldReads extends HoldReads {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async find(scope: HoldScope, walletId: string, holdId: string): Promise<Hold | undefined> {
    const rows: HoldRow[] = await this.dataSource.query(
      `SELECT ${HOLD_COLUMNS} FROM wallet_holds WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4`,
      [scope.organizationId, scope.workspaceId, walletId, holdId],
    );
    return rows[0] && toHold(rows[0]);
  }

  async listPending(scope: HoldScope, walletId: string): Promise<Hold[]> {
    const rows: HoldRow[] = await this.dataSource.query(
      `SELECT ${HOLD_COLUMNS} FROM wallet_holds
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND status = 'pending'
        ORDER BY created_at DESC, id DESC`,
      [scope.organizationId, scope.workspaceId, walletId],
    );
    return rows.map(toHold);
  }
}
