import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { CustomerView } from './customer.view';

export class ListCustomersQuery extends Query<Page<CustomerView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: { externalId?: string; email?: string },
  ) {
    super();
  }
}
