import { CancelSubscriptionHandler } from './cancel-subscription.handler';
import { CreateSubscriptionHandler } from './create-subscription.handler';
import { GetSubscriptionHandler } from './get-subscription.handler';
import { GetSubscriptionsHandler } from './get-subscriptions.handler';
import { ListSubscriptionsHandler } from './list-subscriptions.handler';

/** The handlers of the subscriptions use cases (commands, then queries), registered by CatalogModule. */
export const SubscriptionHandlers = [
  CancelSubscriptionHandler,
  CreateSubscriptionHandler,
  GetSubscriptionHandler,
  GetSubscriptionsHandler,
  ListSubscriptionsHandler,
];
