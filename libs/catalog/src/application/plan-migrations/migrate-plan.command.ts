import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import type { SkipReason } from '../../domain/plan-migration';

export interface MigrateInput {
  mode: unknown;
  targetVersion: unknown;
  prorationStrategy?: unknown;
  scheduledAt?: Date;
}

export interface MigrationResultView {
  mode: 'PREVIEW' | 'IMMEDIATE' | 'SCHEDULED';
  target_version: number;
  affected_subscriptions: number;
  scheduled_at: Date | null;
  migration_id: string | null;
  skipped_by_reason: Record<SkipReason, number>;
}

export class MigratePlanCommand extends Command<MigrationResultView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly input: MigrateInput,
  ) {
    super();
  }
}
