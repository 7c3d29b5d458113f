import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { SubscriptionView } from './subscription.view';

export interface SubscriptionFilters {
  planId?: string;
  customerId?: string;
  status?: 'active' | 'canceled';
}

export class ListSubscriptionsQuery extends Query<Page<SubscriptionView>> {
  constructor(
    readonly actor: Actor,
    readonly filters: SubscriptionFilters,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
