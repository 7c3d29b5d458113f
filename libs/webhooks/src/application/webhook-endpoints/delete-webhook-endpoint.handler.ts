import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog } from '@app/shared-kernel';
import { DeleteWebhookEndpointCommand } from './delete-webhook-endpoint.command';
import { findEndpoint } from './webhook-endpoint-rows';

@CommandHandler(DeleteWebhookEndpointCommand)
export class DeleteWebhookEndpointHandler implements ICommandHandler<DeleteWebhookEndpointCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
  ) {}

  /** Its deliveries and their log go with it (no attempt is made for a deleted endpoint). */
  async execute({ actor, endpointId }: DeleteWebhookEndpointCommand): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const current = await findEndpoint(this.txHost.tx, actor, endpointId, true);
      await this.txHost.tx.query(`DELETE FROM webhook_endpoints WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`, [
        actor.organizationId,
        actor.workspaceId,
        current.id,
      ]);
      await this.audit.record(actor, {
        action: 'webhook_endpoint.deleted',
        resourceType: 'webhook_endpoint',
        resourceId: current.id,
      });
    });
  }
}
