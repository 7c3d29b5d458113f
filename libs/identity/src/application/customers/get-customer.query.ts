import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { CustomerView } from './customer.view';

export class GetCustomerQuery extends Query<CustomerView> {
  constructor(
    readonly actor: Actor,
    readonly customerId: string,
  ) {
    super();
  }
}
