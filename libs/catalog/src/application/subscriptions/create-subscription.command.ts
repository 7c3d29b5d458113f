import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

/** A subscription as the API sends it; undefined: not sent (defaults apply). */
export interface SubscriptionInput {
  customerId: string;
  planId: string;
  planVersion?: number;
  billingCadence?: string;
  planTrackMode?: string;
  versionChangeStrategy?: string;
  productPins?: { productId: string; productVersionId: string }[];
  currentPeriodStart?: Date;
}

export class CreateSubscriptionCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: SubscriptionInput,
  ) {
    super();
  }
}
