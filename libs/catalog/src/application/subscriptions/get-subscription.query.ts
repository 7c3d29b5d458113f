import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { SubscriptionView } from './subscription.view';

export class GetSubscriptionQuery extends Query<SubscriptionView> {
  constructor(
    readonly actor: Actor,
    readonly subscriptionId: string,
  ) {
    super();
  }
}
