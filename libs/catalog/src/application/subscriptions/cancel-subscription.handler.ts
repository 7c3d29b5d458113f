import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { SubscriptionRepository } from '../../domain/subscriber-ports';
import { CancelSubscriptionCommand } from './cancel-subscription.command';
import { CatalogEvents } from '../catalog-events';
import { GetSubscriptionQuery } from './get-subscription.query';

@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand> {
  constructor(
    private readonly subscriptions: SubscriptionRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: CancelSubscriptionCommand): Promise<void> {
    const { actor, subscriptionId } = command;
    return this.catalogEvents.around(actor, 'subscription.canceled', () => this.run(command), {
      before: () => new GetSubscriptionQuery(actor, subscriptionId),
      after: () => new GetSubscriptionQuery(actor, subscriptionId),
    });
  }

  @Transactional()
  private async run({ actor, subscriptionId }: CancelSubscriptionCommand): Promise<void> {
    const subscription = await this.subscriptions.lock(actor, subscriptionId);
    if (!subscription) throw catalogNotFound(undefined, 'subscription');
    subscription.cancel(this.clock.now());
    await this.subscriptions.save(subscription);
    await this.audit.record(actor, {
      action: 'subscription.canceled',
      resourceType: 'subscription',
      resourceId: subscription.id,
    });
  }
}
