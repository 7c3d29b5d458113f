import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { AuditLog, GetEventQuery } from '@app/shared-kernel';
import { WebhookDeliveries } from './webhook-deliveries';
import { RedeliverEventCommand } from './redeliver-event.command';
import { WebhookDeliveryView } from './webhook-delivery.view';
import { DELIVERY_COLUMNS, DeliveryRow, toDeliveryView } from './webhook-delivery-rows';

@CommandHandler(RedeliverEventCommand)
export class RedeliverEventHandler implements ICommandHandler<RedeliverEventCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly queries: QueryBus,
    private readonly deliveries: WebhookDeliveries,
    private readonly audit: AuditLog,
  ) {}

  async execute({ actor, eventId, endpointId }: RedeliverEventCommand): Promise<WebhookDeliveryView> {
    // The caller's workspace's event as GET /v1/events/{id} answers it (EVENT_NOT_FOUND otherwise): the body sent.
    const event = await this.queries.execute(new GetEventQuery(actor, eventId));
    return this.txHost.withTransaction(async () => {
      const id = await this.deliveries.redeliver(event, { organizationId: actor.organizationId }, endpointId);
      await this.audit.record(actor, { action: 'event.redelivered', resourceType: 'event', resourceId: event.id });
      const [row]: DeliveryRow[] = await this.txHost.tx.query(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE organization_id = $1 AND id = $2`,
        [actor.organizationId, id],
      );
      return toDeliveryView(row);
    });
  }
}
