import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import type { OutcomeStatus, SkipReason } from '../../domain/plan-migration';
import { VersionRefView } from '../subscriptions/subscription.view';

export interface MigrationView {
  object: 'migration';
  id: string;
  plan_id: string;
  trigger: 'manual' | 'publish';
  mode: 'IMMEDIATE' | 'SCHEDULED';
  target_version: VersionRefView;
  proration_strategy: string;
  scheduled_at: Date | null;
  status: string;
  counts: Record<'total' | OutcomeStatus, number>;
  skipped_by_reason: Record<SkipReason, number>;
  created_by: { type: string; id: string };
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  canceled_at: Date | null;
}

export class GetMigrationQuery extends Query<MigrationView> {
  constructor(
    readonly actor: Actor,
    readonly migrationId: string,
  ) {
    super();
  }
}
