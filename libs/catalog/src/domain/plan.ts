import { createHash } from 'node:crypto';
import { canonicalJson, DomainError, newId } from '@app/shared-kernel';
import { catalogConflict } from './catalog-errors';
import { MembershipTerms, TrackMode } from './membership-terms';
import { CreatedBy, ReleaseNotes, VersionLine, VersionRecord } from './version-line';

export const PRICE_CADENCE_UNITS = ['week', 'month', 'year'] as const;
export type PriceCadenceUnit = (typeof PRICE_CADENCE_UNITS)[number];

/** Live fields: they change in place and never create a version (a version keeps them as they were at freeze). */
export interface PlanDetails {
  name: string;
  description: string | null;
  publicDescription: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  customFields: Record<string, unknown>;
  translations: Record<string, unknown>;
  tags: string[];
}

export interface PlanMembership {
  productId: string;
  /** Order of addition, for a stable read. */
  position: number;
  terms: MembershipTerms;
}

/** What only a publish changes: the cadence and each membership's terms. */
export interface PlanContent {
  priceCadenceUnit: PriceCadenceUnit;
  memberships: PlanMembership[];
}

/** A membership resolved at go-live: the product version it bills and the track mode it had. */
export interface ResolvedMembership {
  productId: string;
  productVersionId: string;
  trackMode: TrackMode;
}

export type PlanResolution = { ok: true; memberships: ResolvedMembership[] } | { ok: false; error: DomainError };

export interface Tracking {
  trackMode: TrackMode;
  pinnedProductVersionId: string | null;
}

export interface PlanState {
  organizationId: string;
  workspaceId: string;
  id: string;
  details: PlanDetails;
  status: 'draft' | 'scheduled' | 'active' | 'archived';
  publishedAt: Date | null;
  archivedAt: Date | null;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export function planContentHash(content: PlanContent): string {
  const memberships = Object.fromEntries(content.memberships.map((membership) => [membership.productId, membership.terms]));
  return createHash('sha256')
    .update(canonicalJson({ price_cadence_unit: content.priceCadenceUnit, memberships }))
    .digest('hex');
}

/** A never-published plan's content when its draft opens on no base. */
const INITIAL_CONTENT: PlanContent = { priceCadenceUnit: 'month', memberships: [] };
const INITIAL_HASH = planContentHash(INITIAL_CONTENT);

/**
 * A plan: live display fields, a version line, the content (cadence, membership terms) of its
 * draft, head and queue, each version's frozen display fields, and the live tracking row of each
 * membership (its track mode applies at once and survives versions).
 */
export class Plan {
  private readonly contentDirty = new Set<string>();
  private readonly resolved = new Map<string, ResolvedMembership[]>();
  private readonly trackingDirty = new Set<string>();
  /** Versions that went live since load, in order: subscribers tracking latest move to them. */
  private readonly wentLive: VersionRecord[] = [];
  private versionChecked: number | undefined;

  private constructor(
    private state: PlanState,
    readonly line: VersionLine,
    private readonly contents: Map<string, PlanContent>,
    private readonly frozenDetails: Map<string, PlanDetails>,
    private readonly tracking: Map<string, Tracking>,
  ) {}

  static restore(input: {
    state: PlanState;
    nextVersionNo: number;
    versions: VersionRecord[];
    contents: Map<string, PlanContent>;
    frozenDetails: Map<string, PlanDetails>;
    tracking: Map<string, Tracking>;
  }): Plan {
    return new Plan(
      { ...input.state },
      VersionLine.restore({ nextVersionNo: input.nextVersionNo, initialHash: INITIAL_HASH, rows: input.versions }),
      new Map(input.contents),
      new Map(input.frozenDetails),
      new Map(input.tracking),
    );
  }

  /** A new plan (status draft, version 1) with its working draft open on its initial content. */
  static create(input: {
    organizationId: string;
    workspaceId: string;
    details: PlanDetails;
    priceCadenceUnit: PriceCadenceUnit;
    now: Date;
    createdBy: CreatedBy;
  }): Plan {
    const plan = new Plan(
      {
        organizationId: input.organizationId,
        workspaceId: input.workspaceId,
        id: newId(),
        details: input.details,
        status: 'draft',
        publishedAt: null,
        archivedAt: null,
        deletedAt: null,
        createdAt: input.now,
        updatedAt: input.now,
      },
      VersionLine.start(INITIAL_HASH),
      new Map(),
      new Map(),
      new Map(),
    );
    plan.openDraft({ now: input.now, createdBy: input.createdBy });
    if (input.priceCadenceUnit !== INITIAL_CONTENT.priceCadenceUnit)
      plan.stageCadence(input.priceCadenceUnit, input.now, input.createdBy);
    return plan;
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<PlanState> {
    return this.state;
  }

  get archived(): boolean {
    return this.state.status === 'archived' || this.state.deletedAt !== null;
  }

  /** `plans.version`: the head's number, or 1 before the first go-live (the concurrency token). */
  get version(): number {
    return this.line.head?.version ?? 1;
  }

  contentOf(versionId: string): PlanContent | undefined {
    return this.contents.get(versionId);
  }

  detailsOf(versionId: string): PlanDetails {
    return this.frozenDetails.get(versionId) ?? this.state.details;
  }

  /** The working view: the draft's content when a draft is open, else the head's, else the initial content. */
  get workingContent(): PlanContent {
    const row = this.line.draft ?? this.line.head;
    return (row && this.contents.get(row.id)) ?? INITIAL_CONTENT;
  }

  trackingOf(productId: string): Tracking | undefined {
    return this.tracking.get(productId);
  }

  get pendingWrites() {
    return {
      versions: this.line.changedRows(),
      contents: [...this.contentDirty].map((id) => ({
        versionId: id,
        content: this.contents.get(id) ?? null,
        details: this.detailsOf(id),
      })),
      resolved: [...this.resolved].map(([versionId, memberships]) => ({ versionId, memberships })),
      tracking: [...this.trackingDirty].map((productId) => ({ productId, tracking: this.tracking.get(productId) ?? null })),
      expectedVersion: this.versionChecked,
      wentLive: [...this.wentLive],
    };
  }

  /** `expected_version` must equal the head's number (409 CONFLICT with the current one otherwise). */
  expectVersion(expected: number | undefined): void {
    if (expected === undefined) return;
    if (expected !== this.version) {
      throw new DomainError('conflict', 'CONFLICT', `The plan is at version ${this.version}, not ${expected}.`, {
        param: 'expected_version',
        details: { current_version: this.version },
      });
    }
    this.versionChecked = expected;
  }

  updateDetails(changes: Partial<PlanDetails>, now: Date): void {
    this.state = { ...this.state, details: { ...this.state.details, ...changes }, updatedAt: now };
  }

  /** Terminal: cancels the queue (the caller cancels the changes); the head keeps billing its subscribers. */
  archive(now: Date): VersionRecord[] {
    if (this.state.status === 'archived') return [];
    const canceled = this.cancelQueue(now);
    this.state = { ...this.state, status: 'archived', archivedAt: now, updatedAt: now };
    return canceled;
  }

  /** Soft delete: the queue is canceled and the draft discarded; versions stay for existing subscribers. */
  delete(now: Date): VersionRecord[] {
    const canceled = this.cancelQueue(now);
    if (this.line.draft) this.discardDraft(now);
    this.state = { ...this.state, deletedAt: now, updatedAt: now };
    return canceled;
  }

  openDraft(input: { baseVersionId?: string; now: Date; createdBy: CreatedBy }): VersionRecord {
    this.assertNotArchived();
    const { draft, copyFrom, copied } = this.line.openDraft({ id: newId(), ...input });
    if (copied) this.copyContent(copyFrom, draft.id);
    return draft;
  }

  discardDraft(now: Date): VersionRecord {
    const draft = this.line.discardDraft(now);
    this.contents.delete(draft.id);
    this.contentDirty.add(draft.id);
    return draft;
  }

  stageCadence(cadence: PriceCadenceUnit, now: Date, createdBy: CreatedBy): void {
    this.stage(now, createdBy, (content) => ({ ...content, priceCadenceUnit: cadence }));
  }

  /** Staged in the draft; the tracking row (track mode, pin) is live at once. */
  addMembership(input: { productId: string; terms: MembershipTerms; tracking: Tracking; now: Date; createdBy: CreatedBy }): void {
    if (this.workingContent.memberships.some((membership) => membership.productId === input.productId)) {
      throw catalogConflict('ALREADY_EXISTS', 'This product is already on the plan.', { param: 'product_id' });
    }
    this.stage(input.now, input.createdBy, (content) => ({
      ...content,
      memberships: [
        ...content.memberships,
        {
          productId: input.productId,
          position: Math.max(0, ...content.memberships.map((membership) => membership.position)) + 1,
          terms: input.terms,
        },
      ],
    }));
    this.setTracking(input.productId, input.tracking);
  }

  membership(productId: string): PlanMembership | undefined {
    return this.workingContent.memberships.find((membership) => membership.productId === productId);
  }

  /** New terms reach subscribers at the next publish; a track mode applies at once. */
  updateMembership(
    productId: string,
    change: { terms?: MembershipTerms; trackMode?: TrackMode },
    now: Date,
    createdBy: CreatedBy,
  ): void {
    this.requireMembership(productId);
    if (change.terms) {
      this.stage(now, createdBy, (content) => ({
        ...content,
        memberships: content.memberships.map((membership) =>
          membership.productId === productId ? { ...membership, terms: change.terms! } : membership,
        ),
      }));
    }
    if (change.trackMode) {
      const current = this.tracking.get(productId);
      this.setTracking(productId, {
        trackMode: change.trackMode,
        pinnedProductVersionId: current?.pinnedProductVersionId ?? null,
      });
      this.state = { ...this.state, updatedAt: now };
    }
  }

  removeMembership(productId: string, now: Date, createdBy: CreatedBy): void {
    this.requireMembership(productId);
    this.stage(now, createdBy, (content) => ({
      ...content,
      memberships: content.memberships.filter((membership) => membership.productId !== productId),
    }));
  }

  /** §2.7 for this plan; `resolution` is the draft's memberships resolved at the go-live instant. */
  assertCanGoLive(input: {
    stagedVersionId: string;
    now: Date;
    scheduledFor?: Date;
    resolution?: PlanResolution;
  }): VersionRecord {
    return this.line.assertCanGoLive({
      stagedVersionId: input.stagedVersionId,
      archived: this.archived,
      now: input.now,
      scheduledFor: input.scheduledFor,
      checkContent: () => {
        if (input.resolution && !input.resolution.ok) throw input.resolution.error;
      },
    });
  }

  publishDraft(
    input: { stagedVersionId: string; changeId: string; now: Date; resolution: PlanResolution } & ReleaseNotes,
  ): VersionRecord {
    this.assertCanGoLive(input);
    this.freezeDetails(this.line.draft!.id);
    const { published } = this.line.publishDraft({
      at: input.now,
      changeId: input.changeId,
      releaseName: input.releaseName,
      releaseNote: input.releaseNote,
    });
    this.recordGoLive(published, input.resolution, input.now);
    return published;
  }

  scheduleDraft(
    input: {
      stagedVersionId: string;
      changeId: string;
      scheduledFor: Date;
      now: Date;
      resolution: PlanResolution;
    } & ReleaseNotes,
  ): VersionRecord {
    this.assertCanGoLive(input);
    this.freezeDetails(this.line.draft!.id);
    const row = this.line.scheduleDraft({
      scheduledFor: input.scheduledFor,
      changeId: input.changeId,
      now: input.now,
      releaseName: input.releaseName,
      releaseNote: input.releaseNote,
    });
    this.state = { ...this.state, updatedAt: input.now };
    return row;
  }

  /** A due release fires: the entity must not be archived and its content must still resolve. */
  fireRelease(versionId: string, resolution: PlanResolution, now: Date): { published?: VersionRecord; error?: DomainError } {
    const error = this.archived
      ? catalogConflict('PUBLISH_ENTITY_ARCHIVED', 'The plan is archived.')
      : resolution.ok
        ? undefined
        : resolution.error;
    if (error) {
      const { draftFollowUp } = this.line.errorRelease(
        versionId,
        { code: error.code, message: error.message, details: error.details },
        now,
      );
      if (draftFollowUp) this.copyContent(draftFollowUp.recopyFrom, this.line.draft!.id);
      return { error };
    }
    const { published, draftFollowUp } = this.line.fireRelease(versionId);
    if (draftFollowUp) this.copyContent(draftFollowUp.recopyFrom, this.line.draft!.id);
    this.recordGoLive(published, resolution, now);
    return { published };
  }

  cancelRelease(versionId: string, now: Date): { row: VersionRecord; dependents: VersionRecord[] } {
    const { row, dependents, draftFollowUp } = this.line.cancelRelease(versionId, now);
    if (draftFollowUp) this.copyContent(draftFollowUp.recopyFrom, this.line.draft!.id);
    this.state = { ...this.state, updatedAt: now };
    return { row, dependents };
  }

  /**
   * The head's content resolved anew (a product it tracks went live, or a bulk republish): a
   * version with the same content and the new resolution goes live.
   */
  republish(input: {
    now: Date;
    origin: 'cascade' | 'manual';
    createdBy: CreatedBy;
    cascadeSource: VersionRecord['cascadeSource'];
    resolution: PlanResolution & { ok: true };
  }): VersionRecord {
    const head = this.line.head!;
    const { published } = this.line.republish({
      id: newId(),
      at: input.now,
      origin: input.origin,
      cascadeSource: input.cascadeSource,
      createdBy: input.createdBy,
    });
    this.contents.set(published.id, structuredClone(this.contents.get(head.id)!));
    this.frozenDetails.set(published.id, this.detailsOf(head.id));
    this.contentDirty.add(published.id);
    this.recordGoLive(published, input.resolution, input.now);
    return published;
  }

  /**
   * A cascade that could not re-resolve the head (a §2.7 content refusal): an archived/errored row
   * holding the head's content is kept with the refusal; the head keeps billing.
   */
  recordErroredCascade(input: {
    now: Date;
    createdBy: CreatedBy;
    cascadeSource: NonNullable<VersionRecord['cascadeSource']>;
    error: DomainError;
  }): VersionRecord | undefined {
    const head = this.line.head;
    if (!head) return undefined;
    const row = this.line.recordErroredRepublish({
      id: newId(),
      at: input.now,
      cascadeSource: input.cascadeSource,
      createdBy: input.createdBy,
      error: { code: input.error.code, message: input.error.message, details: input.error.details },
    });
    this.contents.set(row.id, structuredClone(this.contents.get(head.id)!));
    this.frozenDetails.set(row.id, this.detailsOf(head.id));
    this.contentDirty.add(row.id);
    return row;
  }

  private recordGoLive(published: VersionRecord, resolution: PlanResolution, now: Date): void {
    if (!resolution.ok) throw resolution.error;
    this.resolved.set(published.id, resolution.memberships);
    this.wentLive.push(published);
    for (const membership of resolution.memberships) {
      const tracking = this.tracking.get(membership.productId);
      // A pinned membership with no pin yet keeps the version it resolved to as its pin.
      if (membership.trackMode === 'pinned' && tracking && tracking.pinnedProductVersionId !== membership.productVersionId) {
        this.setTracking(membership.productId, { trackMode: 'pinned', pinnedProductVersionId: membership.productVersionId });
      }
    }
    this.state = {
      ...this.state,
      status: this.state.status === 'draft' ? 'active' : this.state.status,
      publishedAt: published.effectiveFrom,
      updatedAt: now,
    };
  }

  private freezeDetails(versionId: string): void {
    this.frozenDetails.set(versionId, structuredClone(this.state.details));
    this.contentDirty.add(versionId);
  }

  private cancelQueue(now: Date): VersionRecord[] {
    return this.line.queue.map((row) => this.cancelRelease(row.id, now).row);
  }

  private stage(now: Date, createdBy: CreatedBy, edit: (content: PlanContent) => PlanContent): void {
    this.assertNotArchived();
    if (!this.line.draft) this.openDraft({ now, createdBy });
    const draft = this.line.draft!;
    const content = edit(this.contents.get(draft.id)!);
    this.contents.set(draft.id, content);
    this.contentDirty.add(draft.id);
    this.line.touchDraft(planContentHash(content), now);
    this.state = { ...this.state, updatedAt: now };
  }

  private copyContent(fromVersionId: string | null, toVersionId: string): void {
    const source = fromVersionId === null ? INITIAL_CONTENT : this.contents.get(fromVersionId)!;
    this.contents.set(toVersionId, structuredClone(source));
    this.contentDirty.add(toVersionId);
  }

  private setTracking(productId: string, tracking: Tracking): void {
    this.tracking.set(productId, tracking);
    this.trackingDirty.add(productId);
  }

  private requireMembership(productId: string): PlanMembership {
    const membership = this.membership(productId);
    if (!membership)
      throw new DomainError('not_found', 'PRODUCT_NOT_ON_PLAN', 'This product is not on the plan.', { param: 'product_id' });
    return membership;
  }

  private assertNotArchived(): void {
    if (this.archived) throw catalogConflict('ENTITY_ARCHIVED', 'The plan is archived; its content can no longer change.');
  }
}
