import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { ChangeReads } from '../application/changes/change-reads';
import { ChangeView } from '../application/changes/get-change.query';
import { CHANGE_COLUMNS, ChangeRow } from './typeorm-change.repository';

function changeView(row: ChangeRow & { rank: number | null }): ChangeView {
  return {
    object: 'change',
    id: row.id,
    operation: 'catalog.publish_version',
    subject_kind: row.subject_kind,
    subject_id: row.subject_id,
    staged_version_id: row.staged_version_id,
    status: row.status,
    scheduled_for: row.scheduled_for,
    rank: row.status === 'pending' && row.rank !== null ? Number(row.rank) : null,
    pins: row.pins,
    release_name: row.release_name,
    release_note: row.release_note,
    result: row.result_version_id ? { id: row.result_version_id, version: row.result_version! } : null,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    created_by: row.created_by,
    created_at: row.created_at,
    applied_at: row.applied_at,
    canceled_at: row.canceled_at,
  };
}

@Injectable()
export class TypeOrmChangeReads extends ChangeReads {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async find(scope: { organizationId: string; workspaceId: string }, changeId: string): Promise<ChangeView | undefined> {
    // The rank's correlated count names the organization by its parameter: Citus routes it to one shard only so.
    const [row]: (ChangeRow & { rank: number | null })[] = await this.txHost.tx.query(
      `SELECT ${CHANGE_COLUMNS.split(',')
        .map((column) => `c.${column.trim()}`)
        .join(', ')},
              (SELECT count(*) FROM changes q WHERE q.organization_id = $1 AND q.workspace_id = c.workspace_id
                  AND q.subject_kind = c.subject_kind AND q.subject_id = c.subject_id AND q.status = 'pending'
                  AND q.scheduled_for <= c.scheduled_for) AS rank
         FROM changes c WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.id = $3`,
      [scope.organizationId, scope.workspaceId, changeId],
    );
    return row && changeView(row);
  }
}
