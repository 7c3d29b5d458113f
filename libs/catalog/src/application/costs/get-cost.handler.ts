import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { GetCostQuery } from './get-cost.query';
import { CostView } from './cost.view';
import { costView, CostReader } from './cost-reader';

@QueryHandler(GetCostQuery)
export class GetCostHandler implements IQueryHandler<GetCostQuery> {
  constructor(private readonly costs: CostReader) {}

  async execute({ actor, costId }: GetCostQuery): Promise<CostView> {
    if (!isUuid(costId)) throw catalogNotFound(undefined, 'cost');
    const [row] = await this.costs.read(actor, `c.id = $3 AND c.state <> 'retired'`, [costId], 'default');
    if (!row) throw catalogNotFound(undefined, 'cost');
    return costView(row);
  }
}
