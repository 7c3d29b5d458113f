import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { Hold } from '../../domain/hold';
import { HOLD_COLUMNS, HoldRow, toHold } from '../../infrastructure/typeorm-hold.repository';
import { GetHoldQuery } from './get-hold.query';
import { holdNotFound } from './hold-locks';

@QueryHandler(GetHoldQuery)
export class GetHoldHandler implements IQueryHandler<GetHoldQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, walletId, holdId }: GetHoldQuery): Promise<Hold> {
    const rows: HoldRow[] =
      isUuid(walletId) && isUuid(holdId)
        ? await this.dataSource.query(
            `SELECT ${HOLD_COLUMNS} FROM wallet_holds WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4`,
            [actor.organizationId, actor.workspaceId, walletId, holdId],
          )
        : [];
    if (!rows[0]) throw holdNotFound();
    return toHold(rows[0]);
  }
}
