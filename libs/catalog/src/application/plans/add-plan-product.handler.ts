import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from '../../domain/catalog-errors';
import { termsForAdd, TrackMode } from '../../domain/membership-terms';
import { PlanRepository } from '../../domain/repositories';
import { createdByOf } from '../created-by';
import { PlanReleases } from '../plan-releases';
import { AddPlanProductCommand } from './add-plan-product.command';
import { loadPlan } from './plan-writes';

/** A product of this workspace that can join a plan: it exists and is not archived. */
async function assertJoinable(
  txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  actor: Actor,
  productId: string,
): Promise<void> {
  const [product] = isUuid(productId)
    ? await preparedQuery<{ status: string }>(
        txHost.tx,
        `SELECT status FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        [actor.organizationId, actor.workspaceId, productId],
      )
    : [];
  if (!product) throw catalogNotFound('product_id', 'product');
  if (product.status === 'archived')
    throw CatalogErrors.ENTITY_ARCHIVED.create('An archived product cannot join a plan.', { param: 'product_id' });
}

/** Omitted: the workspace's `default_product_track_mode`, else latest. */
async function defaultTrackMode(txHost: TransactionHost<TransactionalAdapterTypeOrm>, actor: Actor): Promise<TrackMode> {
  const [workspace] = await preparedQuery<{ mode: string | null }>(
    txHost.tx,
    `SELECT settings->>'default_product_track_mode' AS mode FROM workspaces WHERE organization_id = $1 AND id = $2`,
    [actor.organizationId, actor.workspaceId],
  );
  return workspace?.mode === 'pinned' ? 'pinned' : 'latest';
}

@CommandHandler(AddPlanProductCommand)
export class AddPlanProductHandler implements ICommandHandler<AddPlanProductCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, productId, terms, trackMode }: AddPlanProductCommand): Promise<void> {
    const validated = termsForAdd(terms);
    const plan = await loadPlan(this.releases, actor, planId);
    await assertJoinable(this.txHost, actor, productId);
    plan.addMembership({
      productId,
      terms: validated,
      tracking: {
        trackMode: trackMode ?? (await defaultTrackMode(this.txHost, actor)),
        pinnedProductVersionId: plan.trackingOf(productId)?.pinnedProductVersionId ?? null,
      },
      now: this.clock.now(),
      createdBy: createdByOf(actor),
    });
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.product_added',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { product_id: productId },
    });
  }
}
