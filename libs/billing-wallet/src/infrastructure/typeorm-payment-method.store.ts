import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { PaymentMethodOwner, PaymentMethodStore } from '../application/payment-methods/payment-method.store';
import { PaymentMethodView } from '../application/payment-methods/attach-payment-method.command';

/** Saved payment methods in PostgreSQL, through the transaction's EntityManager. */
@Injectable()
export class TypeOrmPaymentMethodStore extends PaymentMethodStore {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  override async insert(owner: Omit<PaymentMethodOwner, 'customerId'>, method: PaymentMethodView): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO payment_methods (organization_id, workspace_id, id, customer_id, provider, brand, last4, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        owner.organizationId,
        owner.workspaceId,
        method.id,
        method.customerId,
        method.provider,
        method.brand,
        method.last4,
        method.createdAt,
      ],
    );
  }

  /** Whether `id` names a payment method of this customer in this organization and workspace. */
  override async belongsTo(owner: PaymentMethodOwner, id: string): Promise<boolean> {
    const rows: unknown[] = await this.txHost.tx.query(
      'SELECT 1 FROM payment_methods WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND customer_id = $4',
      [owner.organizationId, owner.workspaceId, id, owner.customerId],
    );
    return rows.length > 0;
  }
}
