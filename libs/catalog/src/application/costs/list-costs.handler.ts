import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition, Page } from '@app/shared-kernel';
import { ListCostsQuery } from './list-costs.query';
import { CostView } from './cost.view';
import { CostReadRow, costView, CostReader } from './cost-reader';

@QueryHandler(ListCostsQuery)
export class ListCostsHandler implements IQueryHandler<ListCostsQuery> {
  constructor(
    private readonly costs: CostReader,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, scope, limit, cursor }: ListCostsQuery): Promise<Page<CostView>> {
    const page = await keysetPage<CostReadRow>(
      this.cursors,
      { list: 'costs', filters: { scope: scope ?? null }, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.costs.read(
          actor,
          `c.state = 'active' AND ($3::text IS NULL OR c.scope = $3) AND ($4::timestamptz IS NULL OR (c.created_at, c.id) < ($4, $5::uuid))`,
          [scope ?? null, after?.[0] ?? null, after?.[1] ?? null, rows],
          'default',
          'ORDER BY c.created_at DESC, c.id DESC LIMIT $6',
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(costView) };
  }
}
