import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, isUuid, keysetPage, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../domain/catalog-errors';
import { CHANGE_COLUMNS, ChangeRow } from '../infrastructure/typeorm-change.repository';
import { GetCascadeRunQuery, GetChangeQuery, ListCascadeTasksQuery } from './catalog.queries';
import { CascadeRunView, CascadeTaskView, ChangeView } from './catalog.views';

export function changeView(row: ChangeRow & { rank: number | null }): ChangeView {
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

@QueryHandler(GetChangeQuery)
export class GetChangeHandler implements IQueryHandler<GetChangeQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, changeId }: GetChangeQuery): Promise<ChangeView> {
    // The rank's correlated count names the organization by its parameter: Citus routes it to one shard only so.
    const [row]: (ChangeRow & { rank: number | null })[] = isUuid(changeId)
      ? await this.txHost.tx.query(
          `SELECT ${CHANGE_COLUMNS.split(',')
            .map((column) => `c.${column.trim()}`)
            .join(', ')},
                  (SELECT count(*) FROM changes q WHERE q.organization_id = $1 AND q.workspace_id = c.workspace_id
                      AND q.subject_kind = c.subject_kind AND q.subject_id = c.subject_id AND q.status = 'pending'
                      AND q.scheduled_for <= c.scheduled_for) AS rank
             FROM changes c WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.id = $3`,
          [actor.organizationId, actor.workspaceId, changeId],
        )
      : [];
    if (!row) throw catalogNotFound(undefined, 'change');
    return changeView(row);
  }
}

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

@QueryHandler(ListCascadeTasksQuery)
export class ListCascadeTasksHandler implements IQueryHandler<ListCascadeTasksQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, runId, limit, cursor }: ListCascadeTasksQuery): Promise<Page<CascadeTaskView>> {
    const [run] = isUuid(runId)
      ? await this.txHost.tx.query(`SELECT 1 FROM cascade_runs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          runId,
        ])
      : [];
    if (!run) throw catalogNotFound(undefined, 'cascade_run');
    type TaskRow = {
      subject_kind: 'product' | 'plan';
      subject_id: string;
      status: CascadeTaskView['status'];
      result_version_id: string | null;
      result_version: number | null;
      attempts: number;
      error_code: string | null;
      error_message: string | null;
      error_details: Record<string, unknown> | null;
      updated_at: Date;
    };
    const page = await keysetPage<TaskRow>(
      this.cursors,
      { list: 'cascade_tasks', filters: { run_id: runId }, order: 'subject:asc' },
      { limit, cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `SELECT subject_kind, subject_id, status, result_version_id, result_version, attempts, error_code, error_message, error_details, updated_at
             FROM cascade_tasks WHERE organization_id = $1 AND workspace_id = $2 AND run_id = $3
              AND ($4::text IS NULL OR (subject_kind, subject_id) > ($4, $5::uuid))
            ORDER BY subject_kind, subject_id LIMIT $6`,
          [actor.organizationId, actor.workspaceId, runId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      (row) => [row.subject_kind, row.subject_id],
    );
    return {
      ...page,
      data: page.data.map((row) => ({
        subject_kind: row.subject_kind,
        subject_id: row.subject_id,
        status: row.status,
        result_version: row.result_version_id ? { id: row.result_version_id, version: row.result_version! } : null,
        attempts: row.attempts,
        error: row.error_code
          ? { code: row.error_code, message: row.error_message ?? '', details: row.error_details ?? {} }
          : null,
        updated_at: row.updated_at,
      })),
    };
  }
}
