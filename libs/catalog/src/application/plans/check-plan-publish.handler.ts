import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandBus, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainError } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { PlanRepository } from '../../domain/repositories';
import { CreateChangeCommand } from '../changes/create-change.command';
import { PlanReleases } from '../plan-releases';
import { PublishCheckView, CheckPlanPublishQuery } from './check-plan-publish.query';

/** Thrown at the end of a successful dry run so that everything it wrote is rolled back. */
class DryRunSucceeded extends Error {}

/** PostgreSQL's lock_not_available: another writer held the plan (or a product) longer than the dry run waits. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Model §4.9 `publish_check`: a real `catalog.publish_version` of the working draft — the same
 * command POST /v1/changes runs, catch-up, resolution, job enqueues and all — inside a
 * transaction that is always rolled back and waits at most 5 s for a lock. The first §2.7
 * refusal comes back as `{ok: false, code, message}`; an unknown plan is still a 404.
 */
@QueryHandler(CheckPlanPublishQuery)
export class CheckPlanPublishHandler implements IQueryHandler<CheckPlanPublishQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly commands: CommandBus,
    private readonly releases: PlanReleases,
    private readonly plans: PlanRepository,
  ) {}

  async execute({ actor, planId, scheduledFor }: CheckPlanPublishQuery): Promise<PublishCheckView> {
    try {
      await this.txHost.withTransaction(async () => {
        await this.txHost.tx.query(`SET LOCAL lock_timeout = '5s'`);
        const plan = await this.releases.load(actor, planId);
        if (!plan) throw catalogNotFound(undefined, 'plan');
        // Catch-up is part of the dry run: the command below sees its result, and both roll back.
        await this.plans.save(plan);
        const draft = plan.line.draft;
        if (!draft) {
          if (plan.archived)
            throw CatalogErrors.PUBLISH_ENTITY_ARCHIVED.create('The plan is archived; nothing of it can go live.');
          throw CatalogErrors.PUBLISH_NOTHING_STAGED.create('The plan has no working draft: nothing is staged.');
        }
        await this.commands.execute(
          new CreateChangeCommand(actor, { subjectKind: 'plan', subjectId: plan.id, stagedVersionId: draft.id, scheduledFor }),
        );
        throw new DryRunSucceeded();
      });
    } catch (error) {
      if (error instanceof DryRunSucceeded) return { ok: true, code: null, message: null };
      if (error instanceof DomainError && error.kind !== 'not_found')
        return { ok: false, code: error.code, message: error.message };
      if (
        (error as { code?: unknown; driverError?: { code?: unknown } })?.driverError?.code === LOCK_NOT_AVAILABLE ||
        (error as { code?: unknown })?.code === LOCK_NOT_AVAILABLE
      ) {
        throw CatalogErrors.PLAN_BUSY.create('The plan is being changed right now; ask again in a moment.');
      }
      throw error;
    }
    throw new Error('unreachable: the dry run always rolls back');
  }
}
