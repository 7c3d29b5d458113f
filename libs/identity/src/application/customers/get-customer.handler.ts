import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid, SharedErrors } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { CustomerWallets } from '../../domain/customer-wallets';
import { CustomerView } from './customer.view';
import { GetCustomerQuery } from './get-customer.query';
import { COLUMNS, CustomerRow, toViews } from './customer-rows';

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wallets: CustomerWallets,
  ) {}

  async execute({ actor, customerId }: GetCustomerQuery): Promise<CustomerView> {
    const rows: CustomerRow[] = isUuid(customerId)
      ? await this.dataSource.query(
          `SELECT ${COLUMNS} FROM customers WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, customerId],
        )
      : [];
    if (!rows[0]) throw SharedErrors.CUSTOMER_NOT_FOUND.create('No such customer.', { param: 'id' });
    const [view] = await toViews(this.wallets, actor, rows);
    return view;
  }
}
