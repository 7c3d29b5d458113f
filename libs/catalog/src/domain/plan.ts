import { createHash } from 'node:crypto';
import { canonicalJson, DomainError, newId, SharedErrors } from '@app/shared-kernel';
import { CatalogErrors } from './catalog-errors';
import { MembershipTerms, TrackMode } from './membership-terms';
import { PlanDetails } from './plan-details';
import { ContentRules, ReleaseFlow, wentLive } from './release-flow';
import { CreatedBy, ReleaseNotes, VersionLine, VersionRecord } from './version-line';

export type { PlanDetails } from './plan-details';

export const PRICE_CADENCE_UNITS = ['week', 'month', 'year'] as const;
export type PriceCadenceUnit = (typeof PRICE_CADENCE_UNITS)[number];

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
const CONTENT_RULES: ContentRules<PlanContent> = { initial: INITIAL_CONTENT, hash: planContentHash, copy: structuredClone };

/**
 * A plan: live display fields, a version line, the content (cadence, membership terms) of its
 * draft, head and queue, each version's frozen display fields, and the live tracking row of each
 * membership (its track mode applies at once and survives versions).
 */
export class Plan {
  private readonly resolved = new Map<string, ResolvedMembership[]>();
  private readonly trackingDirty = new Set<string>();
  /** Versions that went live since load, in order: subscribers tracking latest move to them. */
  private readonly wentLive: VersionRecord[] = [];
  private versionChecked: number | undefined;
  private readonly flow: ReleaseFlow<PlanContent>;

  private constructor(
    private state: PlanState,
    readonly line: VersionLine,
    contents: Map<string, PlanContent>,
    private readonly frozenDetails: Map<string, PlanDetails>,
    private readonly tracking: Map<string, Tracking>,
  ) {
    this.flow = new ReleaseFlow(line, contents, CONTENT_RULES, 'plan');
  }

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
    return this.flow.contentOf(versionId);
  }

  detailsOf(versionId: string): PlanDetails {
    return this.frozenDetails.get(versionId) ?? this.state.details;
  }

  /** The working view: the draft's content when a draft is open, else the head's, else the initial content. */
  get workingContent(): PlanContent {
    const row = this.line.draft ?? this.line.head;
    return (row && this.flow.contentOf(row.id)) ?? INITIAL_CONTENT;
  }

  trackingOf(productId: string): Tracking | undefined {
    return this.tracking.get(productId);
  }

  get pendingWrites() {
    return {
      versions: this.line.changedRows(),
      contents: this.flow.changedVersionIds.map((id) => ({
        versionId: id,
        content: this.flow.contentOf(id) ?? null,
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
      throw SharedErrors.CONFLICT.create(`The plan is at version ${this.version}, not ${expected}.`, {
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
    return this.flow.openDraft(input);
  }

  discardDraft(now: Date): VersionRecord {
    return this.flow.discardDraft(now);
  }

  stageCadence(cadence: PriceCadenceUnit, now: Date, createdBy: CreatedBy): void {
    this.stage(now, createdBy, (content) => ({ ...content, priceCadenceUnit: cadence }));
  }

  /** Staged in the draft; the tracking row (track mode, pin) is live at once. */
  addMembership(input: { productId: string; terms: MembershipTerms; tracking: Tracking; now: Date; createdBy: CreatedBy }): void {
    if (this.workingContent.memberships.some((membership) => membership.productId === input.productId)) {
      throw SharedErrors.ALREADY_EXISTS.create('This product is already on the plan.', { param: 'product_id' });
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
    return this.flow.assertCanGoLive({
      stagedVersionId: input.stagedVersionId,
      archived: this.archived,
      now: input.now,
      scheduledFor: input.scheduledFor,
      refusal: input.resolution && !input.resolution.ok ? input.resolution.error : undefined,
    });
  }

  publishDraft(
    input: { stagedVersionId: string; changeId: string; now: Date; resolution: PlanResolution } & ReleaseNotes,
  ): VersionRecord {
    this.assertCanGoLive(input);
    this.freezeDetails(this.line.draft!.id);
    const published = this.flow.publishDraft(input);
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
    const fired = this.flow.fireRelease(versionId, {
      archived: this.archived,
      refusal: resolution.ok ? undefined : resolution.error,
      now,
    });
    if (fired.error) return { error: fired.error };
    this.recordGoLive(fired.published, resolution, now);
    return { published: fired.published };
  }

  cancelRelease(versionId: string, now: Date): { row: VersionRecord; dependents: VersionRecord[] } {
    const canceled = this.flow.cancelRelease(versionId, now);
    this.state = { ...this.state, updatedAt: now };
    return canceled;
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
    this.flow.keepHeadContent(published.id, head.id);
    this.frozenDetails.set(published.id, this.detailsOf(head.id));
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
    this.flow.keepHeadContent(row.id, head.id);
    this.frozenDetails.set(row.id, this.detailsOf(head.id));
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
    this.state = wentLive(this.state, published, now);
  }

  private freezeDetails(versionId: string): void {
    this.frozenDetails.set(versionId, structuredClone(this.state.details));
    this.flow.touch(versionId);
  }

  private cancelQueue(now: Date): VersionRecord[] {
    return this.line.queue.map((row) => this.cancelRelease(row.id, now).row);
  }

  private stage(now: Date, createdBy: CreatedBy, edit: (content: PlanContent) => PlanContent): void {
    this.assertNotArchived();
    if (!this.line.draft) this.openDraft({ now, createdBy });
    this.flow.stage(edit, now);
    this.state = { ...this.state, updatedAt: now };
  }

  private setTracking(productId: string, tracking: Tracking): void {
    this.tracking.set(productId, tracking);
    this.trackingDirty.add(productId);
  }

  private requireMembership(productId: string): PlanMembership {
    const membership = this.membership(productId);
    if (!membership) throw CatalogErrors.PRODUCT_NOT_ON_PLAN.create('This product is not on the plan.', { param: 'product_id' });
    return membership;
  }

  private assertNotArchived(): void {
    this.flow.assertNotArchived(this.archived);
  }
}
