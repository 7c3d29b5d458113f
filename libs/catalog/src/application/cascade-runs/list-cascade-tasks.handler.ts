import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, isUuid, keysetPage, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ListCascadeTasksQuery, CascadeTaskView } from './list-cascade-tasks.query';

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
