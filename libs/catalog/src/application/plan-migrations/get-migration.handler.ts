import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { OutcomeStatus, SKIP_REASONS, SkipReason } from '../../domain/plan-migration';
import { GetMigrationQuery, MigrationView } from './get-migration.query';

interface MigrationRow {
  id: string;
  plan_id: string;
  trigger: 'manual' | 'publish';
  mode: 'IMMEDIATE' | 'SCHEDULED';
  target_version_id: string;
  target_version: number;
  proration_strategy: string;
  scheduled_at: Date | null;
  status: string;
  created_by: { type: string; id: string };
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  canceled_at: Date | null;
}

@QueryHandler(GetMigrationQuery)
export class GetMigrationHandler implements IQueryHandler<GetMigrationQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, migrationId }: GetMigrationQuery): Promise<MigrationView> {
    const params = [actor.organizationId, actor.workspaceId, migrationId];
    const [row] = isUuid(migrationId)
      ? await preparedQuery<MigrationRow>(
          this.txHost.tx,
          `SELECT id, plan_id, trigger, mode, target_version_id, target_version, proration_strategy, scheduled_at, status, created_by, created_at,
                  started_at, completed_at, canceled_at
             FROM plan_migrations WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          params,
        )
      : [];
    if (!row) throw catalogNotFound(undefined, 'migration');
    const groups = await preparedQuery<{ status: OutcomeStatus; reason: SkipReason | null; n: number }>(
      this.txHost.tx,
      `SELECT status, reason, count(*)::int AS n FROM plan_migration_outcomes
        WHERE organization_id = $1 AND workspace_id = $2 AND migration_id = $3 GROUP BY status, reason`,
      params,
    );
    const counts = { total: 0, pending: 0, moved: 0, skipped: 0, failed: 0 };
    const skippedByReason = Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<SkipReason, number>;
    for (const group of groups) {
      counts.total += group.n;
      counts[group.status] += group.n;
      if (group.status === 'skipped' && group.reason) skippedByReason[group.reason] += group.n;
    }
    return {
      object: 'migration',
      id: row.id,
      plan_id: row.plan_id,
      trigger: row.trigger,
      mode: row.mode,
      target_version: { id: row.target_version_id, version: row.target_version },
      proration_strategy: row.proration_strategy,
      scheduled_at: row.scheduled_at,
      status: row.status,
      counts,
      skipped_by_reason: skippedByReason,
      created_by: row.created_by,
      created_at: row.created_at,
      started_at: row.started_at,
      completed_at: row.completed_at,
      canceled_at: row.canceled_at,
    };
  }
}
