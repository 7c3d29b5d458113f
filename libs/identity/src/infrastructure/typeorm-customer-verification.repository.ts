import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid } from '@app/shared-kernel';
import { CustomerVerification, VerificationState, VerificationStatus, VerificationType } from '../domain/customer-verification';
import { CustomerVerificationRepository, VerificationKey } from '../domain/customer-verification.repository';

/** Every column; `provider_result` as its stored text (json keeps what the provider sent). */
export const VERIFICATION_COLUMNS = `organization_id, workspace_id, id, customer_id, verification_type, status, provider, provider_reference,
  provider_result::text AS provider_result, last_event_at, retry_count, next_retry_at, created_at, updated_at, completed_at, expires_at`;

export interface VerificationRow {
  organization_id: string;
  workspace_id: string;
  id: string;
  customer_id: string;
  verification_type: VerificationType;
  status: VerificationStatus;
  provider: string;
  provider_reference: string;
  provider_result: string | null;
  last_event_at: Date | null;
  retry_count: number;
  next_retry_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expires_at: Date | null;
}

export function toVerificationState(row: VerificationRow): VerificationState {
  return {
    organizationId: row.organization_id,
    workspaceId: row.workspace_id,
    id: row.id,
    customerId: row.customer_id,
    verificationType: row.verification_type,
    status: row.status,
    provider: row.provider,
    providerReference: row.provider_reference,
    providerResult: row.provider_result,
    lastEventAt: row.last_event_at,
    retryCount: row.retry_count,
    nextRetryAt: row.next_retry_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    expiresAt: row.expires_at,
  };
}

function toValues(state: Readonly<VerificationState>): unknown[] {
  return [
    state.organizationId,
    state.workspaceId,
    state.id,
    state.customerId,
    state.verificationType,
    state.status,
    state.provider,
    state.providerReference,
    state.providerResult,
    state.lastEventAt,
    state.retryCount,
    state.nextRetryAt,
    state.createdAt,
    state.updatedAt,
    state.completedAt,
    state.expiresAt,
  ];
}

@Injectable()
export class TypeOrmCustomerVerificationRepository extends CustomerVerificationRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async lock({ organizationId, workspaceId, verificationId }: VerificationKey): Promise<CustomerVerification | undefined> {
    if (!isUuid(verificationId)) return undefined;
    const rows: VerificationRow[] = await this.txHost.tx.query(
      `SELECT ${VERIFICATION_COLUMNS} FROM customer_verifications
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`,
      [organizationId, workspaceId, verificationId],
    );
    return rows[0] && CustomerVerification.restore(toVerificationState(rows[0]));
  }

  /**
   * The reference is unique per organization only (so the table can be distributed by it); a
   * provider issues each one once, and one found in two organizations resolves none rather than
   * either. It is found without a lock, then locked by its key: on Citus only a statement naming
   * the organization (one shard) may lock rows.
   */
  async lockByReference(provider: string, reference: string): Promise<CustomerVerification | undefined> {
    const found: { organization_id: string; workspace_id: string; id: string }[] = await this.txHost.tx.query(
      `SELECT organization_id, workspace_id, id FROM customer_verifications WHERE provider = $1 AND provider_reference = $2 LIMIT 2`,
      [provider, reference],
    );
    if (found.length !== 1) return undefined;
    return this.lock({
      organizationId: found[0].organization_id,
      workspaceId: found[0].workspace_id,
      verificationId: found[0].id,
    });
  }

  async insert(verification: CustomerVerification): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO customer_verifications (organization_id, workspace_id, id, customer_id, verification_type, status, provider,
         provider_reference, provider_result, last_event_at, retry_count, next_retry_at, created_at, updated_at, completed_at,
         expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      toValues(verification.snapshot),
    );
  }

  /** The columns a verification's life changes; its identity, customer, type and provider never do. */
  async update(verification: CustomerVerification): Promise<void> {
    const state = verification.snapshot;
    await this.txHost.tx.query(
      `UPDATE customer_verifications
          SET status = $4, provider_result = $5, last_event_at = $6, retry_count = $7, next_retry_at = $8,
              updated_at = $9, completed_at = $10, expires_at = $11
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [
        state.organizationId,
        state.workspaceId,
        state.id,
        state.status,
        state.providerResult,
        state.lastEventAt,
        state.retryCount,
        state.nextRetryAt,
        state.updatedAt,
        state.completedAt,
        state.expiresAt,
      ],
    );
  }
}
