import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { CustomerState } from '../../domain/customer';

/** A customer as answered: `primaryWalletId` is its current primary wallet (opened with it). */
export type CustomerView = Omit<CustomerState, 'organizationId'> & { primaryWalletId: string };

export class CreateCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly actor: Actor,
    readonly input: { name: unknown; email?: unknown; currency: unknown; externalId?: unknown; metadata?: unknown },
  ) {
    super();
  }
}

export class GetCustomerQuery extends Query<CustomerView> {
  constructor(
    readonly actor: Actor,
    readonly customerId: string,
  ) {
    super();
  }
}

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
