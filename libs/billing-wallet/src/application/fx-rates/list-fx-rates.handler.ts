import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { FxRateRow, FxRateView, toView } from './fx-rate.view';
import { ListFxRatesQuery } from './list-fx-rates.query';

@QueryHandler(ListFxRatesQuery)
export class ListFxRatesHandler implements IQueryHandler<ListFxRatesQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor }: ListFxRatesQuery): Promise<FxRateView[]> {
    const rows: FxRateRow[] = await this.dataSource.query(
      `SELECT from_currency, to_currency, rate, updated_at FROM fx_rates WHERE organization_id = $1 AND workspace_id = $2
        ORDER BY from_currency, to_currency`,
      [actor.organizationId, actor.workspaceId],
    );
    return rows.map(toView);
  }
}
