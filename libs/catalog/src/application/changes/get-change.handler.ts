import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ChangeReads } from './change-reads';
import { GetChangeQuery, ChangeView } from './get-change.query';

@QueryHandler(GetChangeQuery)
export class GetChangeHandler implements IQueryHandler<GetChangeQuery> {
  constructor(private readonly changes: ChangeReads) {}

  async execute({ actor, changeId }: GetChangeQuery): Promise<ChangeView> {
    const change = isUuid(changeId) ? await this.changes.find(actor, changeId) : undefined;
    if (!change) throw catalogNotFound(undefined, 'change');
    return change;
  }
}
