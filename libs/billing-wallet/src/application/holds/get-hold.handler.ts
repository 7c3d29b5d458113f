import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';
import { GetHoldQuery } from './get-hold.query';
import { holdNotFound } from './hold-locks';
import { HoldReads } from './hold-reads';

@QueryHandler(GetHoldQuery)
export class GetHoldHandler implements IQueryHandler<GetHoldQuery> {
  constructor(private readonly holds: HoldReads) {}

  async execute({ actor, walletId, holdId }: GetHoldQuery): Promise<Hold> {
    const hold = isUuid(walletId) && isUuid(holdId) ? await this.holds.find(actor, walletId, holdId) : undefined;
    if (!hold) throw holdNotFound();
    return hold;
  }
}
