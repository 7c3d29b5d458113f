import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, invalidParameter, isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogConflict, catalogNotFound } from '../domain/catalog-errors';
import { Change } from '../domain/change';
import { Product } from '../domain/product';
import { ChangeRepository, ProductRepository } from '../domain/repositories';
import { CancelChangeCommand, CreateChangeCommand } from './catalog.commands';
import { createdByOf } from './cost.handlers';
import { Pricing } from './pricing';
import { ProductReleases } from './product-releases';

/** The staged version named by a change: the working draft, or 409/404 for what it is instead. */
async function assertStagedVersionKnown(actor: Actor, products: ProductRepository, product: Product, versionId: string): Promise<void> {
  if (product.line.row(versionId)) return;
  if (await products.versionExists(actor, product.id, versionId)) {
    throw catalogConflict('PUBLISH_NOT_WORKING_DRAFT', 'That version is not the working draft.', { param: 'staged_version_id' });
  }
  throw catalogNotFound('staged_version_id', 'version');
}

@CommandHandler(CreateChangeCommand)
export class CreateChangeHandler implements ICommandHandler<CreateChangeCommand> {
  constructor(
    private readonly products: ProductRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: ProductReleases,
    private readonly pricing: Pricing,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateChangeCommand): Promise<string> {
    if (input.subjectKind === 'product' && input.pins !== undefined) {
      throw invalidParameter('pins', 'INVALID_VALUE', 'pins apply to plan versions only.');
    }
    if (input.subjectKind !== 'product') throw catalogNotFound('subject_id', 'product');
    const product = await this.releases.load(actor, input.subjectId);
    if (!product) throw catalogNotFound('subject_id', 'product');
    await assertStagedVersionKnown(actor, this.products, product, input.stagedVersionId);
    const now = this.clock.now();
    const change = Change.request({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      subjectKind: 'product',
      subjectId: product.id,
      stagedVersionId: input.stagedVersionId,
      scheduledFor: input.scheduledFor ?? null,
      pins: [],
      releaseName: input.releaseName ?? null,
      releaseNote: input.releaseNote ?? null,
      createdBy: createdByOf(actor),
      createdAt: now,
    });
    const goLiveAt = input.scheduledFor ?? now;
    const draftContent = product.draftContent;
    const materialization = draftContent ? await this.pricing.materialize(actor, draftContent, goLiveAt) : undefined;
    const notes = { releaseName: input.releaseName, releaseNote: input.releaseNote };
    if (input.scheduledFor) {
      product.scheduleDraft({ stagedVersionId: input.stagedVersionId, changeId: change.id, scheduledFor: input.scheduledFor, now, materialization: materialization!, ...notes });
      await this.changes.save(change);
      await this.releases.enqueue({ organizationId: actor.organizationId, workspaceId: actor.workspaceId, productId: product.id, changeId: change.id }, input.scheduledFor);
    } else {
      const published = product.publishDraft({ stagedVersionId: input.stagedVersionId, changeId: change.id, now, materialization: materialization!, ...notes });
      change.applied(published, now);
      await this.changes.save(change);
    }
    await this.products.save(product);
    await this.audit.record(actor, {
      action: input.scheduledFor ? 'change.scheduled' : 'change.applied',
      resourceType: 'change',
      resourceId: change.id,
      data: { subject_kind: 'product', subject_id: product.id, staged_version_id: input.stagedVersionId },
    });
    return change.id;
  }
}

@CommandHandler(CancelChangeCommand)
export class CancelChangeHandler implements ICommandHandler<CancelChangeCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly products: ProductRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: ProductReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, changeId }: CancelChangeCommand) {
    if (!isUuid(changeId)) throw catalogNotFound(undefined, 'change');
    const [subject] = await preparedQuery<{ subject_id: string; status: string; scheduled_for: Date | null }>(
      this.txHost.tx,
      `SELECT subject_id, status, scheduled_for FROM changes WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [actor.organizationId, actor.workspaceId, changeId],
    );
    if (!subject) throw catalogNotFound(undefined, 'change');
    // A due release has gone live whether or not its job ran: fire it for good (own transaction), then refuse.
    if (subject.status === 'pending' && subject.scheduled_for && subject.scheduled_for.getTime() <= this.clock.now().getTime()) {
      await this.releases.fireDue(actor, subject.subject_id);
    }
    // Product first, then the change: the order catch-up takes, so the two never deadlock.
    const product = await this.releases.load(actor, subject.subject_id);
    const change = (await this.changes.lock(actor, changeId))!;
    const now = this.clock.now();
    change.cancel(now);
    const version = product?.line.queue.find((row) => row.changeId === changeId);
    const dependents = version && product ? product.cancelRelease(version.id, now).dependents : [];
    await this.changes.save(change);
    if (product) await this.products.save(product);
    await this.audit.record(actor, { action: 'change.canceled', resourceType: 'change', resourceId: changeId });
    return { changeId, dependents: dependents.map((row) => ({ id: row.id, version: row.version, status: row.status })) };
  }
}
