import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { CustomerWallets } from '../../domain/customer-wallets';
import { ListCustomersQuery } from './list-customers.query';
import { COLUMNS, CustomerRow, toViews } from './customer-rows';

@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
    private readonly wallets: CustomerWallets,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListCustomersQuery) {
    const page = await keysetPage<CustomerRow>(
      this.cursors,
      {
        list: 'customers',
        filters: { external_id: filters.externalId ?? null, email: filters.email ?? null },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${COLUMNS} FROM customers
            WHERE organization_id = $1 AND workspace_id = $2
              AND ($3::text IS NULL OR external_id = $3) AND ($4::text IS NULL OR email = lower($4))
              AND ($5::timestamptz IS NULL OR (created_at, id) < ($5, $6::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $7`,
          [
            actor.organizationId,
            actor.workspaceId,
            filters.externalId ?? null,
            filters.email ?? null,
            after?.[0] ?? null,
            after?.[1] ?? null,
            rows,
          ],
        ),
      newestFirstPosition,
    );
    return { ...page, data: await toViews(this.wallets, actor, page.data) };
  }
}
