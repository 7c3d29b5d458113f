import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { migrateRequest, PlanMigration } from '../../domain/plan-migration';
import { PlanRepository } from '../../domain/repositories';
import { PlanMigrationRepository, SubscriptionRepository } from '../../domain/subscriber-ports';
import { createdByOf } from '../created-by';
import { MigrationRunner } from './migration-runner';
import { PlanReleases } from '../plan-releases';
import { MigratePlanCommand, MigrationResultView } from './migrate-plan.command';

@CommandHandler(MigratePlanCommand)
export class MigratePlanHandler implements ICommandHandler<MigratePlanCommand> {
  constructor(
    private readonly releases: PlanReleases,
    private readonly plans: PlanRepository,
    private readonly subscriptions: SubscriptionRepository,
    private readonly migrations: PlanMigrationRepository,
    private readonly runner: MigrationRunner,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, input }: MigratePlanCommand): Promise<MigrationResultView> {
    const now = this.clock.now();
    const request = migrateRequest(input, now);
    // The plan locked (and its due releases fired) first: lock order plan → subscriptions.
    const plan = await this.releases.load(actor, planId);
    if (!plan) throw catalogNotFound(undefined, 'plan');
    // Only what catch-up fired is saved: a PREVIEW writes nothing of its own.
    if (plan.pendingWrites.versions.length > 0) await this.plans.save(plan);
    const target = await this.subscriptions.liveVersion(actor, plan.id, request.targetVersion);
    if (!target) {
      throw CatalogErrors.INVALID_TARGET_VERSION.create(`Version ${request.targetVersion} of the plan never went live.`, {
        param: 'target_version',
        details: { target_version: request.targetVersion },
      });
    }
    const scope = await this.migrations.scope(actor, plan.id, target);
    const result: MigrationResultView = {
      mode: request.mode,
      target_version: target.version,
      affected_subscriptions: scope.affected,
      scheduled_at: request.scheduledAt,
      migration_id: null,
      skipped_by_reason: scope.skippedByReason,
    };
    if (request.mode === 'PREVIEW') return result;
    const migration = PlanMigration.request({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      planId: plan.id,
      trigger: 'manual',
      mode: request.mode,
      target,
      prorationStrategy: request.prorationStrategy,
      scheduledAt: request.scheduledAt,
      createdBy: createdByOf(actor),
      now,
    });
    await this.migrations.save(migration);
    if (request.mode === 'IMMEDIATE') {
      result.affected_subscriptions = await this.migrations.buildOutcomes(migration, target);
      if (await this.migrations.completeOrNextDue(actor, migration.id, now)) await this.runner.enqueueRun(actor, migration.id);
    } else {
      await this.runner.enqueueStart(migration, actor.workspaceMode);
    }
    await this.audit.record(actor, {
      action: 'plan.migration_requested',
      resourceType: 'migration',
      resourceId: migration.id,
      data: {
        plan_id: plan.id,
        mode: request.mode,
        target_version: target.version,
        affected_subscriptions: result.affected_subscriptions,
      },
    });
    return { ...result, migration_id: migration.id };
  }
}
