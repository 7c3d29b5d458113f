import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  Actor,
  AuditLog,
  Clock,
  DomainError,
  invalidParameter,
  isUniqueViolation,
  isUuid,
  preparedQuery,
} from '@app/shared-kernel';
import { catalogConflict, catalogInvalid, catalogNotFound } from '../domain/catalog-errors';
import { termsForAdd, termsForUpdate, TrackMode } from '../domain/membership-terms';
import { Plan, PlanDetails, PRICE_CADENCE_UNITS, PriceCadenceUnit } from '../domain/plan';
import { ChangeRepository, PlanRepository } from '../domain/repositories';
import { cancelChangesOf } from './canceled-releases';
import { createdByOf } from './cost.handlers';
import { PlanReleases } from './plan-releases';
import {
  AddPlanProductCommand,
  AnnotatePlanVersionCommand,
  CopyPlanCommand,
  CreatePlanCommand,
  DeletePlanCommand,
  DiscardPlanDraftCommand,
  OpenPlanDraftCommand,
  PlanInput,
  RemovePlanProductCommand,
  UpdatePlanCommand,
  UpdatePlanProductCommand,
} from './plan.commands';
import { CatalogEvents } from './catalog-events';
import { GetPlanQuery } from './plan.queries';

const TAG = /^[A-Za-z0-9 _.:-]{1,64}$/;

function cadenceOf(value: unknown): PriceCadenceUnit {
  if (!(PRICE_CADENCE_UNITS as readonly unknown[]).includes(value)) {
    throw invalidParameter(
      'price_cadence_unit',
      'INVALID_VALUE',
      `price_cadence_unit must be one of ${PRICE_CADENCE_UNITS.join(', ')}.`,
    );
  }
  return value as PriceCadenceUnit;
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
    throw invalidParameter('name', 'INVALID_FORMAT', 'name must be 1–200 characters.');
  }
  return value.trim();
}

function tagsOf(value: string[]): string[] {
  if (value.length > 50 || value.some((tag) => typeof tag !== 'string' || !TAG.test(tag))) {
    throw invalidParameter('tags', 'INVALID_VALUE', 'tags: at most 50, each 1–64 characters of letters, digits, space, _ . : -');
  }
  return [...new Set(value)];
}

/** The live fields a body changes: null and undefined leave a field as it is; "" clears a text. */
function detailChanges(input: PlanInput): Partial<PlanDetails> {
  const text = (value: string | null | undefined) =>
    value === undefined || value === null ? undefined : value === '' ? null : value;
  const changes: Partial<PlanDetails> = {
    name: input.name === undefined || input.name === null ? undefined : nameOf(input.name),
    description: text(input.description),
    publicDescription: text(input.publicDescription),
    externalId: text(input.externalId),
    metadata: input.metadata ?? undefined,
    customFields: input.customFields ?? undefined,
    translations: input.translations ?? undefined,
    tags: input.tags === undefined || input.tags === null ? undefined : tagsOf(input.tags),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}

/** One external_id per workspace among non-deleted plans (the partial unique index's word). */
async function savePlan(plans: PlanRepository, plan: Plan): Promise<void> {
  try {
    await plans.save(plan);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw catalogConflict('ALREADY_EXISTS', 'Another plan of this workspace has this external_id.', { param: 'external_id' });
  }
}

async function loadPlan(releases: PlanReleases, actor: Actor, planId: string): Promise<Plan> {
  const plan = await releases.load(actor, planId);
  if (!plan) throw catalogNotFound(undefined, 'plan');
  return plan;
}

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
    throw catalogConflict('ENTITY_ARCHIVED', 'An archived product cannot join a plan.', { param: 'product_id' });
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

@CommandHandler(CreatePlanCommand)
export class CreatePlanHandler implements ICommandHandler<CreatePlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: CreatePlanCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'plan.created', () => this.run(command), {
      after: (id) => new GetPlanQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, input }: CreatePlanCommand): Promise<string> {
    const changes = detailChanges(input);
    const plan = Plan.create({
      ...actor,
      details: {
        name: nameOf(input.name),
        description: changes.description ?? null,
        publicDescription: changes.publicDescription ?? null,
        externalId: changes.externalId ?? null,
        metadata: changes.metadata ?? {},
        customFields: changes.customFields ?? {},
        translations: changes.translations ?? {},
        tags: changes.tags ?? [],
      },
      priceCadenceUnit:
        input.priceCadenceUnit === undefined || input.priceCadenceUnit === null ? 'month' : cadenceOf(input.priceCadenceUnit),
      now: this.clock.now(),
      createdBy: createdByOf(actor),
    });
    await savePlan(this.plans, plan);
    await this.audit.record(actor, { action: 'plan.created', resourceType: 'plan', resourceId: plan.id });
    return plan.id;
  }
}

@CommandHandler(UpdatePlanCommand)
export class UpdatePlanHandler implements ICommandHandler<UpdatePlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  /** Merge-patch: display fields land live, the cadence is staged, status archives only; never publishes. */
  @Transactional()
  async execute(command: UpdatePlanCommand): Promise<string> {
    const { actor, planId } = command;
    return this.catalogEvents.around(actor, 'plan.updated', () => this.run(command), {
      before: () => new GetPlanQuery(actor, planId),
      after: () => new GetPlanQuery(actor, planId),
    });
  }

  @Transactional()
  private async run({ actor, planId, input }: UpdatePlanCommand): Promise<string> {
    if (input.status === 'active') {
      throw catalogInvalid(
        'PUBLISH_VIA_CHANGE_REQUIRED',
        'A plan goes live through POST /v1/changes (catalog.publish_version).',
        { param: 'status' },
      );
    }
    if (input.status === 'draft' || input.status === 'scheduled') {
      throw catalogInvalid(
        'STATUS_NOT_WRITABLE',
        `status ${input.status} follows from the plan's versions; only "archived" can be set.`,
        { param: 'status' },
      );
    }
    if (input.status !== undefined && input.status !== null && input.status !== 'archived') {
      throw invalidParameter('status', 'INVALID_VALUE', 'status must be "archived".');
    }
    const cadence =
      input.priceCadenceUnit === undefined || input.priceCadenceUnit === null ? undefined : cadenceOf(input.priceCadenceUnit);
    const changes = detailChanges(input);
    const plan = await loadPlan(this.releases, actor, planId);
    plan.expectVersion(input.expectedVersion);
    const now = this.clock.now();
    plan.updateDetails(changes, now);
    if (cadence && cadence !== plan.workingContent.priceCadenceUnit) plan.stageCadence(cadence, now, createdByOf(actor));
    if (input.status === 'archived') {
      const canceled = plan.archive(now);
      await cancelChangesOf(this.changes, actor, canceled, now);
    }
    await savePlan(this.plans, plan);
    await this.audit.record(actor, {
      action: input.status === 'archived' ? 'plan.archived' : 'plan.updated',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { fields: Object.keys(changes), ...(cadence ? { price_cadence_unit: cadence } : {}) },
    });
    return plan.id;
  }
}

@CommandHandler(DeletePlanCommand)
export class DeletePlanHandler implements ICommandHandler<DeletePlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly changes: ChangeRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  @Transactional()
  async execute(command: DeletePlanCommand): Promise<void> {
    const { actor, planId } = command;
    return this.catalogEvents.around(actor, 'plan.deleted', () => this.run(command), {
      before: () => new GetPlanQuery(actor, planId),
    });
  }

  @Transactional()
  private async run({ actor, planId }: DeletePlanCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    const now = this.clock.now();
    const canceled = plan.delete(now);
    await cancelChangesOf(this.changes, actor, canceled, now);
    await this.plans.save(plan);
    await this.audit.record(actor, { action: 'plan.deleted', resourceType: 'plan', resourceId: plan.id });
  }
}

@CommandHandler(CopyPlanCommand)
export class CopyPlanHandler implements ICommandHandler<CopyPlanCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly catalogEvents: CatalogEvents,
  ) {}

  /** A draft plan at version 1 with the source's live fields (not external_id) and working-view content; no versions. */
  @Transactional()
  async execute(command: CopyPlanCommand): Promise<string> {
    const { actor } = command;
    return this.catalogEvents.around(actor, 'plan.created', () => this.run(command), {
      after: (id) => new GetPlanQuery(actor, id),
    });
  }

  @Transactional()
  private async run({ actor, planId, name }: CopyPlanCommand): Promise<string> {
    const source = await loadPlan(this.releases, actor, planId);
    const details = source.snapshot.details;
    const content = source.workingContent;
    const now = this.clock.now();
    const createdBy = createdByOf(actor);
    const copy = Plan.create({
      ...actor,
      details: {
        ...structuredClone(details),
        name: name === undefined ? `${details.name} (Copy)`.slice(0, 200) : nameOf(name),
        externalId: null,
      },
      priceCadenceUnit: content.priceCadenceUnit,
      now,
      createdBy,
    });
    for (const membership of [...content.memberships].sort((a, b) => a.position - b.position)) {
      const tracking = source.trackingOf(membership.productId) ?? { trackMode: 'latest' as const, pinnedProductVersionId: null };
      copy.addMembership({ productId: membership.productId, terms: membership.terms, tracking: { ...tracking }, now, createdBy });
    }
    await savePlan(this.plans, copy);
    await this.audit.record(actor, {
      action: 'plan.copied',
      resourceType: 'plan',
      resourceId: copy.id,
      data: { source_plan_id: source.id },
    });
    return copy.id;
  }
}

@CommandHandler(OpenPlanDraftCommand)
export class OpenPlanDraftHandler implements ICommandHandler<OpenPlanDraftCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, baseVersionId }: OpenPlanDraftCommand): Promise<string> {
    const plan = await loadPlan(this.releases, actor, planId);
    if (
      baseVersionId !== undefined &&
      !plan.line.row(baseVersionId) &&
      !(await this.plans.versionExists(actor, planId, baseVersionId))
    ) {
      throw catalogNotFound('base_version_id', 'version');
    }
    const draft = plan.openDraft({ baseVersionId, now: this.clock.now(), createdBy: createdByOf(actor) });
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.draft_opened',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { version_id: draft.id },
    });
    return draft.id;
  }
}

@CommandHandler(DiscardPlanDraftCommand)
export class DiscardPlanDraftHandler implements ICommandHandler<DiscardPlanDraftCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId }: DiscardPlanDraftCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    const draft = plan.discardDraft(this.clock.now());
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.draft_discarded',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { version_id: draft.id },
    });
  }
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

@CommandHandler(UpdatePlanProductCommand)
export class UpdatePlanProductHandler implements ICommandHandler<UpdatePlanProductCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, productId, terms, groups, trackMode }: UpdatePlanProductCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    const membership = plan.membership(productId);
    if (!membership)
      throw new DomainError('not_found', 'PRODUCT_NOT_ON_PLAN', 'This product is not on the plan.', { param: 'product_id' });
    const touchesTerms =
      Object.values(terms).some((value) => value !== undefined) || groups.band === true || groups.allowance === true;
    const merged = touchesTerms ? termsForUpdate(membership.terms, terms, groups) : undefined;
    plan.updateMembership(productId, { terms: merged, trackMode }, this.clock.now(), createdByOf(actor));
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.product_updated',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { product_id: productId },
    });
  }
}

@CommandHandler(RemovePlanProductCommand)
export class RemovePlanProductHandler implements ICommandHandler<RemovePlanProductCommand> {
  constructor(
    private readonly plans: PlanRepository,
    private readonly releases: PlanReleases,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, planId, productId }: RemovePlanProductCommand): Promise<void> {
    const plan = await loadPlan(this.releases, actor, planId);
    plan.removeMembership(productId, this.clock.now(), createdByOf(actor));
    await this.plans.save(plan);
    await this.audit.record(actor, {
      action: 'plan.product_removed',
      resourceType: 'plan',
      resourceId: plan.id,
      data: { product_id: productId },
    });
  }
}

@CommandHandler(AnnotatePlanVersionCommand)
export class AnnotatePlanVersionHandler implements ICommandHandler<AnnotatePlanVersionCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
  ) {}

  /** Release notes are display metadata of any row: "" clears, absent leaves; no version is created. */
  @Transactional()
  async execute({ actor, planId, version, notes }: AnnotatePlanVersionCommand): Promise<void> {
    const clear = (value: string | undefined) => (value === '' ? null : value);
    const rows = isUuid(planId)
      ? await preparedQuery<{ id: string }>(
          this.txHost.tx,
          `UPDATE plan_versions v SET release_name = CASE WHEN $5 THEN $6 ELSE v.release_name END,
                  release_note = CASE WHEN $7 THEN $8 ELSE v.release_note END
             FROM plans p
            WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.version = $4
              AND p.organization_id = v.organization_id AND p.workspace_id = v.workspace_id AND p.id = v.plan_id AND p.deleted_at IS NULL
            RETURNING v.id`,
          [
            actor.organizationId,
            actor.workspaceId,
            planId,
            version,
            notes.releaseName !== undefined,
            clear(notes.releaseName) ?? null,
            notes.releaseNote !== undefined,
            clear(notes.releaseNote) ?? null,
          ],
        )
      : [];
    if (rows.length === 0) {
      // An unknown (or another tenant's, or deleted) plan answers as every other plan route does.
      const [plan] = isUuid(planId)
        ? await preparedQuery(
            this.txHost.tx,
            `SELECT 1 FROM plans WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND deleted_at IS NULL`,
            [actor.organizationId, actor.workspaceId, planId],
          )
        : [];
      throw plan ? catalogNotFound('version', 'version') : catalogNotFound(undefined, 'plan');
    }
    await this.audit.record(actor, {
      action: 'plan.version_annotated',
      resourceType: 'plan',
      resourceId: planId,
      data: { version },
    });
  }
}
