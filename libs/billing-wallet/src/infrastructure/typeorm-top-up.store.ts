import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, Money } from '@app/shared-kernel';
import { TopUpView } from '../application/top-ups/top-up.view';
import { NewTopUp, StoredTopUp, TopUpStore } from '../application/top-ups/top-up.store';
import { WalletKey } from '../domain/wallet.repository';

const COLUMNS = `organization_id, workspace_id, id, wallet_id, mode, automatic, amount::text AS amount, currency, status, payment_method_id,
  checkout_url, failure_code, failure_message, transaction_id, created_at, completed_at`;

interface TopUpRow {
  organization_id: string;
  workspace_id: string;
  id: string;
  wallet_id: string;
  mode: TopUpView['mode'];
  automatic: boolean;
  amount: string;
  currency: string;
  status: TopUpView['status'];
  payment_method_id: string | null;
  checkout_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  transaction_id: string | null;
  created_at: Date;
  completed_at: Date | null;
}

function toStored(row: TopUpRow): StoredTopUp {
  return {
    key: { organizationId: row.organization_id, workspaceId: row.workspace_id, walletId: row.wallet_id },
    view: {
      id: row.id,
      walletId: row.wallet_id,
      mode: row.mode,
      automatic: row.automatic,
      amount: Money.of(row.amount, row.currency).toString(),
      currency: row.currency,
      status: row.status,
      paymentMethodId: row.payment_method_id,
      checkoutUrl: row.checkout_url,
      failureCode: row.failure_code,
      failureMessage: row.failure_message,
      transactionId: row.transaction_id,
      createdAt: row.created_at,
      completedAt: row.completed_at,
    },
  };
}

/** Top-ups in PostgreSQL: written and settled inside the caller's transaction. */
@Injectable()
export class TypeOrmTopUpStore extends TopUpStore {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  /** Returns undefined when an automatic top-up is already pending for the wallet. */
  override async insert(key: WalletKey, topUp: NewTopUp): Promise<StoredTopUp | undefined> {
    const rows: TopUpRow[] = await this.txHost.tx.query(
      `INSERT INTO wallet_top_ups (organization_id, workspace_id, id, wallet_id, mode, automatic, amount, currency, status, payment_method_id,
         provider, provider_reference, checkout_url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11, $12, $13)
       ON CONFLICT (organization_id, workspace_id, wallet_id) WHERE automatic AND status = 'pending' DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        key.organizationId,
        key.workspaceId,
        topUp.id,
        key.walletId,
        topUp.mode,
        topUp.automatic,
        topUp.amount.toString(),
        topUp.amount.currency,
        topUp.paymentMethodId,
        topUp.provider,
        topUp.providerReference,
        topUp.checkoutUrl,
        topUp.now,
      ],
    );
    return rows[0] && toStored(rows[0]);
  }

  /**
   * Any tenant's top-up by id, row-locked: webhooks carry no tenant, so it is read first (a top-up
   * never changes tenant), then locked by its key: on Citus only a statement naming the
   * organization (one shard) may lock rows.
   */
  override async lock(id: string, tenant?: { organizationId: string; workspaceId: string }): Promise<StoredTopUp | undefined> {
    if (!isUuid(id)) return undefined;
    const owner = tenant ?? (await this.tenantOf(id));
    if (!owner) return undefined;
    const rows: TopUpRow[] = await this.txHost.tx.query(
      `SELECT ${COLUMNS} FROM wallet_top_ups WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`,
      [owner.organizationId, owner.workspaceId, id],
    );
    return rows[0] && toStored(rows[0]);
  }

  private async tenantOf(id: string): Promise<{ organizationId: string; workspaceId: string } | undefined> {
    const rows: { organization_id: string; workspace_id: string }[] = await this.txHost.tx.query(
      `SELECT organization_id, workspace_id FROM wallet_top_ups WHERE id = $1`,
      [id],
    );
    return rows[0] && { organizationId: rows[0].organization_id, workspaceId: rows[0].workspace_id };
  }

  override async settle(
    key: WalletKey,
    id: string,
    outcome:
      | { status: 'succeeded'; transactionId: string; providerReference: string }
      | { status: 'failed'; failureCode: string; failureMessage: string; providerReference: string | null },
    now: Date,
  ): Promise<StoredTopUp> {
    const [rows]: [TopUpRow[], number] = await this.txHost.tx.query(
      `UPDATE wallet_top_ups SET status = $5, transaction_id = $6, failure_code = $7, failure_message = $8, provider_reference = $9, completed_at = $10
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4 RETURNING ${COLUMNS}`,
      [
        key.organizationId,
        key.workspaceId,
        key.walletId,
        id,
        outcome.status,
        outcome.status === 'succeeded' ? outcome.transactionId : null,
        outcome.status === 'failed' ? outcome.failureCode : null,
        outcome.status === 'failed' ? outcome.failureMessage : null,
        outcome.providerReference,
        now,
      ],
    );
    return toStored(rows[0]);
  }
}
