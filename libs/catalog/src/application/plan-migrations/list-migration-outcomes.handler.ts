import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, isUuid, keysetPage, Page, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { OutcomeStatus } from '../../domain/plan-migration';
import { ListMigrationOutcomesQuery, MigrationOutcomeView } from './list-migration-outcomes.query';

/** By subscription id, optionally of one status; each outcome with its versions resolved to numbers. */
@QueryHandler(ListMigrationOutcomesQuery)
export class ListMigrationOutcomesHandler implements IQueryHandler<ListMigrationOutcomesQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, migrationId, status, limit, cursor }: ListMigrationOutcomesQuery): Promise<Page<MigrationOutcomeView>> {
    const [migration] = isUuid(migrationId)
      ? await preparedQuery(
          this.txHost.tx,
          `SELECT 1 FROM plan_migrations WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, migrationId],
        )
      : [];
    if (!migration) throw catalogNotFound(undefined, 'migration');
    type OutcomeRow = {
      subscription_id: string;
      status: OutcomeStatus;
      reason: string | null;
      from_version_id: string;
      from_version: number;
      to_version_id: string;
      to_version: number;
      effective_at: Date | null;
      proration_strategy: string;
      processed_at: Date | null;
    };
    const page = await keysetPage<OutcomeRow>(
      this.cursors,
      {
        list: 'migration_outcomes',
        filters: { migration_id: migrationId, status: status ?? null },
        order: 'subscription_id:asc',
      },
      { limit, cursor },
      (after, rows) =>
        preparedQuery<OutcomeRow>(
          this.txHost.tx,
          `SELECT o.subscription_id, o.status, o.reason, o.from_version_id, fv.version AS from_version, o.to_version_id, tv.version AS to_version,
                  o.effective_at, o.proration_strategy, o.processed_at
             FROM plan_migration_outcomes o
             JOIN plan_versions fv ON fv.organization_id = o.organization_id AND fv.workspace_id = o.workspace_id AND fv.id = o.from_version_id
             JOIN plan_versions tv ON tv.organization_id = o.organization_id AND tv.workspace_id = o.workspace_id AND tv.id = o.to_version_id
            WHERE o.organization_id = $1 AND o.workspace_id = $2 AND o.migration_id = $3 AND ($4::text IS NULL OR o.status = $4)
              AND ($5::uuid IS NULL OR o.subscription_id > $5)
            ORDER BY o.subscription_id LIMIT $6`,
          [actor.organizationId, actor.workspaceId, migrationId, status ?? null, after?.[0] ?? null, rows],
        ),
      (row) => [row.subscription_id],
    );
    return {
      ...page,
      data: page.data.map((row) => ({
        object: 'migration_outcome',
        migration_id: migrationId,
        subscription_id: row.subscription_id,
        status: row.status,
        reason: row.reason,
        from_version: { id: row.from_version_id, version: row.from_version },
        to_version: { id: row.to_version_id, version: row.to_version },
        effective_at: row.effective_at,
        proration_strategy: row.proration_strategy,
        processed_at: row.processed_at,
      })),
    };
  }
}
