import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { GetCascadeRunQuery, CascadeRunView } from './get-cascade-run.query';

interface RunReadRow {
  id: string;
  trigger: CascadeRunView['trigger'];
  source_type: CascadeRunView['source']['entity_type'];
  root_run_id: string | null;
  source_id: string;
  source_version_id: string;
  source_version: number;
  status: CascadeRunView['status'];
  effective_at: Date;
  created_at: Date;
  started_at: Date | null;
  last_task_at: Date | null;
  total: string;
  pending: string;
  republished: string;
  unchanged: string;
  errored: string;
}

@QueryHandler(GetCascadeRunQuery)
export class GetCascadeRunHandler implements IQueryHandler<GetCascadeRunQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Progress is counted from the tasks, so it is always as current as they are. */
  async execute({ actor, runId }: GetCascadeRunQuery): Promise<CascadeRunView> {
    const [row]: RunReadRow[] = isUuid(runId)
      ? await this.txHost.tx.query(
          `SELECT r.id, r.trigger, r.root_run_id, r.source_type, r.source_id, r.source_version_id, r.source_version, r.status, r.effective_at, r.created_at, r.started_at,
                  t.last_task_at, t.total, t.pending, t.republished, t.unchanged, t.errored
             FROM cascade_runs r CROSS JOIN LATERAL (
               SELECT count(*) AS total, count(*) FILTER (WHERE status = 'pending') AS pending,
                      count(*) FILTER (WHERE status = 'republished') AS republished, count(*) FILTER (WHERE status = 'unchanged') AS unchanged,
                      count(*) FILTER (WHERE status = 'errored') AS errored, max(updated_at) FILTER (WHERE status <> 'pending') AS last_task_at
                 FROM cascade_tasks WHERE organization_id = $1 AND workspace_id = $2 AND run_id = r.id) t
            WHERE r.organization_id = $1 AND r.workspace_id = $2 AND r.id = $3`,
          [actor.organizationId, actor.workspaceId, runId],
        )
      : [];
    if (!row) throw catalogNotFound(undefined, 'cascade_run');
    const pending = Number(row.pending);
    const status = row.status === 'pending' ? 'pending' : pending > 0 ? 'running' : 'completed';
    return {
      object: 'cascade_run',
      id: row.id,
      trigger: row.trigger,
      root_run_id: row.root_run_id,
      source: {
        entity_type: row.source_type,
        entity_id: row.source_id,
        version_id: row.source_version_id,
        version: row.source_version,
      },
      status,
      effective_at: row.effective_at,
      counts: {
        total: Number(row.total),
        pending,
        republished: Number(row.republished),
        unchanged: Number(row.unchanged),
        errored: Number(row.errored),
      },
      created_at: row.created_at,
      started_at: row.started_at,
      completed_at: status === 'completed' ? (row.last_task_at ?? row.started_at) : null,
    };
  }
}
