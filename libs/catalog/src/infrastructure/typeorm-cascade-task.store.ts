import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { Clock, DomainError, preparedQuery } from '@app/shared-kernel';
import { CascadeRunOfTask, CascadeTaskKey, CascadeTaskStore } from '../application/cascade-task.store';

const KEY = `organization_id = $1 AND workspace_id = $2 AND run_id = $3 AND subject_kind = $4 AND subject_id = $5`;

function keyValues(key: CascadeTaskKey): unknown[] {
  return [key.organizationId, key.workspaceId, key.runId, key.subjectKind, key.subjectId];
}

/** The cascade task rows in PostgreSQL, through the transaction's EntityManager. */
@Injectable()
export class TypeOrmCascadeTaskStore extends CascadeTaskStore {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {
    super();
  }

  /** The pending task, locked, with its run; undefined when it already finished (a rerun does nothing). */
  override async lock(key: CascadeTaskKey): Promise<CascadeRunOfTask | undefined> {
    const [row] = await preparedQuery<CascadeRunOfTask & { task_status: string }>(
      this.txHost.tx,
      `SELECT r.id, r.trigger, r.source_id, r.source_version_id, r.source_version, r.status, r.created_by, t.status AS task_status
         FROM cascade_tasks t JOIN cascade_runs r ON r.organization_id = t.organization_id AND r.workspace_id = t.workspace_id AND r.id = t.run_id
        WHERE t.organization_id = $1 AND t.workspace_id = $2 AND t.run_id = $3 AND t.subject_kind = $4 AND t.subject_id = $5
        FOR UPDATE OF t`,
      keyValues(key),
    );
    return row?.task_status === 'pending' ? row : undefined;
  }

  /** Counts a failed attempt; the task's attempts so far (`fallback` when the task is gone). */
  override async countAttempt(key: CascadeTaskKey, fallback: number): Promise<number> {
    const rows = await preparedQuery<{ attempts: number }>(
      this.txHost.tx,
      `UPDATE cascade_tasks SET attempts = attempts + 1 WHERE ${KEY} RETURNING attempts`,
      keyValues(key),
    );
    return rows[0]?.attempts ?? fallback;
  }

  override async finish(
    key: CascadeTaskKey,
    status: 'republished' | 'unchanged' | 'errored',
    version: { id: string; version: number } | null | undefined,
    error?: DomainError,
  ): Promise<void> {
    await preparedQuery(
      this.txHost.tx,
      `UPDATE cascade_tasks SET status = $6, result_version_id = $7, result_version = $8, error_code = $9, error_message = $10,
              error_details = $11, updated_at = $12
        WHERE ${KEY}`,
      [
        ...keyValues(key),
        status,
        version?.id ?? null,
        version?.version ?? null,
        error?.code ?? null,
        error?.message ?? null,
        error?.details ? JSON.stringify(error.details) : null,
        this.clock.now(),
      ],
    );
  }
}
