import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { CustomerWallets } from '@app/identity';
import { Actor, AuditLog } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { walletResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { WalletRepository } from '../../domain/wallet.repository';

/**
 * Identity's CustomerWallets port: a new customer's primary wallet is opened inside the
 * customer's own transaction, so the 201 that names it is never ahead of it. The customer is
 * invisible to every other transaction until then, so no wallet of its currency can predate it.
 */
@Injectable()
export class PrimaryWallets extends CustomerWallets {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly events: WalletEvents,
  ) {
    super();
  }

  async openPrimary(actor: Actor, customer: { id: string; currency: string; createdAt: Date }): Promise<string> {
    if (!this.txHost.isTransactionActive()) throw new Error('PrimaryWallets.openPrimary must run inside a transaction');
    const wallet = Wallet.open({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      customerId: customer.id,
      currency: customer.currency,
      isPrimary: true,
      now: customer.createdAt,
    });
    await this.wallets.insert(wallet);
    await this.audit.record(actor, {
      action: 'wallet.created',
      resourceType: 'wallet',
      resourceId: wallet.id,
      data: { currency: customer.currency, primary: true },
    });
    await this.events.publish(actor, [{ type: 'wallet.created', object: walletResponse(wallet) }]);
    return wallet.id;
  }

  async primaryWalletIds(actor: Actor, customerIds: readonly string[]): Promise<Map<string, string>> {
    const rows: Array<{ customer_id: string; id: string }> = await this.txHost.tx.query(
      `SELECT customer_id, id FROM wallets
        WHERE organization_id = $1 AND workspace_id = $2 AND customer_id = ANY ($3::uuid[]) AND is_primary`,
      [actor.organizationId, actor.workspaceId, customerIds],
    );
    return new Map(rows.map((row) => [row.customer_id, row.id]));
  }
}
