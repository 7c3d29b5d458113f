import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import type { OutcomeStatus } from '../../domain/plan-migration';
import { VersionRefView } from '../subscriptions/subscription.view';

export interface MigrationOutcomeView {
  object: 'migration_outcome';
  migration_id: string;
  subscription_id: string;
  status: OutcomeStatus;
  reason: string | null;
  from_version: VersionRefView;
  to_version: VersionRefView;
  effective_at: Date | null;
  proration_strategy: string;
  processed_at: Date | null;
}

export class ListMigrationOutcomesQuery extends Query<Page<MigrationOutcomeView>> {
  constructor(
    readonly actor: Actor,
    readonly migrationId: string,
    readonly status: OutcomeStatus | undefined,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
