import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { Change, ChangeState } from '../domain/change';
import { ChangeRepository, TenantKey } from '../domain/repositories';

export interface ChangeRow {
  organization_id: string;
  workspace_id: string;
  id: string;
  subject_kind: 'plan' | 'product';
  subject_id: string;
  staged_version_id: string;
  status: ChangeState['status'];
  scheduled_for: Date | null;
  pins: { product_id: string; product_version_id: string }[];
  release_name: string | null;
  release_note: string | null;
  result_version_id: string | null;
  result_version: number | null;
  error_code: string | null;
  error_message: string | null;
  created_by: ChangeState['createdBy'];
  created_at: Date;
  applied_at: Date | null;
  canceled_at: Date | null;
}

export const CHANGE_COLUMNS = `organization_id, workspace_id, id, subject_kind, subject_id, staged_version_id, status, scheduled_for, pins,
  release_name, release_note, result_version_id, result_version, error_code, error_message, created_by, created_at, applied_at, canceled_at`;

export function toChangeState(row: ChangeRow): ChangeState {
  return {
    organizationId: row.organization_id,
    workspaceId: row.workspace_id,
    id: row.id,
    subjectKind: row.subject_kind,
    subjectId: row.subject_id,
    stagedVersionId: row.staged_version_id,
    status: row.status,
    scheduledFor: row.scheduled_for,
    pins: row.pins.map((pin) => ({ productId: pin.product_id, productVersionId: pin.product_version_id })),
    releaseName: row.release_name,
    releaseNote: row.release_note,
    resultVersionId: row.result_version_id,
    resultVersion: row.result_version,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdBy: row.created_by,
    createdAt: row.created_at,
    appliedAt: row.applied_at,
    canceledAt: row.canceled_at,
  };
}

@Injectable()
export class TypeOrmChangeRepository extends ChangeRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async lock(tenant: TenantKey, changeId: string): Promise<Change | undefined> {
    return (await this.lockMany(tenant, [changeId]))[0];
  }

  async lockMany(tenant: TenantKey, changeIds: readonly string[]): Promise<Change[]> {
    const ids = changeIds.filter(isUuid);
    if (ids.length === 0) return [];
    const rows = await preparedQuery<ChangeRow>(
      this.txHost.tx,
      `SELECT ${CHANGE_COLUMNS} FROM changes WHERE organization_id = $1 AND workspace_id = $2 AND id = ANY($3::uuid[]) ORDER BY id FOR UPDATE`,
      [tenant.organizationId, tenant.workspaceId, ids],
    );
    return rows.map((row) => Change.restore(toChangeState(row)));
  }

  async save(change: Change): Promise<void> {
    const s = change.snapshot;
    await preparedQuery(
      this.txHost.tx,
      `INSERT INTO changes (${CHANGE_COLUMNS}, operation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, 'catalog.publish_version')
       ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET status = EXCLUDED.status, result_version_id = EXCLUDED.result_version_id,
         result_version = EXCLUDED.result_version, error_code = EXCLUDED.error_code, error_message = EXCLUDED.error_message,
         applied_at = EXCLUDED.applied_at, canceled_at = EXCLUDED.canceled_at`,
      [
        s.organizationId,
        s.workspaceId,
        s.id,
        s.subjectKind,
        s.subjectId,
        s.stagedVersionId,
        s.status,
        s.scheduledFor,
        JSON.stringify(s.pins.map((pin) => ({ product_id: pin.productId, product_version_id: pin.productVersionId }))),
        s.releaseName,
        s.releaseNote,
        s.resultVersionId,
        s.resultVersion,
        s.errorCode,
        s.errorMessage,
        JSON.stringify(s.createdBy),
        s.createdAt,
        s.appliedAt,
        s.canceledAt,
      ],
    );
  }
}
