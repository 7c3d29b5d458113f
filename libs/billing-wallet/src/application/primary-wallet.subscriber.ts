import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { CustomerCreated } from '@app/identity';
import { AuditLog, HandlesIntegrationEvent, IntegrationEventHandler } from '@app/shared-kernel';
import { Wallet } from '../domain/wallet';
import { WalletRepository } from '../domain/wallet.repository';

/**
 * Every customer gets a primary wallet in its currency. Delivered at least once by the outbox
 * relay, inside the relay's transaction: a redelivery finds the wallet and does nothing.
 */
@Injectable()
@HandlesIntegrationEvent(CustomerCreated)
export class PrimaryWalletOnCustomerCreated implements IntegrationEventHandler<CustomerCreated> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
  ) {}

  async handle(event: CustomerCreated): Promise<void> {
    const existing = await this.txHost.tx.query(
      'SELECT 1 FROM wallets WHERE organization_id = $1 AND workspace_id = $2 AND customer_id = $3 AND is_primary',
      [event.organizationId, event.workspaceId, event.customerId],
    );
    if (existing.length > 0) return;
    // A secondary wallet in the customer's currency may have been opened before this event
    // arrived (one wallet per currency): it becomes the primary one.
    const [promoted] = await this.txHost.tx.query(
      `UPDATE wallets SET is_primary = true, version = version + 1
        WHERE organization_id = $1 AND workspace_id = $2 AND customer_id = $3 AND currency = $4 RETURNING id`,
      [event.organizationId, event.workspaceId, event.customerId, event.currency],
    );
    if (promoted?.length > 0) return;
    const wallet = Wallet.open({
      organizationId: event.organizationId,
      workspaceId: event.workspaceId,
      customerId: event.customerId,
      currency: event.currency,
      isPrimary: true,
      now: new Date(event.occurredAt),
    });
    await this.wallets.insert(wallet);
    await this.audit.record(
      { organizationId: event.organizationId, workspaceId: event.workspaceId, principal: { type: 'system', id: null } },
      {
        action: 'wallet.created',
        resourceType: 'wallet',
        resourceId: wallet.id,
        data: { currency: event.currency, primary: true },
      },
    );
  }
}
