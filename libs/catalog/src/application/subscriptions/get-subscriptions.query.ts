import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { SubscriptionView } from './subscription.view';

/** Several subscriptions as their GET answers each (no route: a batch's events read them in one query). */
export class GetSubscriptionsQuery extends Query<SubscriptionView[]> {
  constructor(
    readonly actor: Actor,
    readonly subscriptionIds: readonly string[],
  ) {
    super();
  }
}
