import { DomainError, SharedErrors } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from './catalog-errors';

export type VersionStatus = 'draft' | 'scheduled' | 'published' | 'archived';
export type ArchivedReason = 'canceled' | 'discarded' | 'errored' | 'superseded';
export type VersionOrigin = 'manual' | 'scheduled_release' | 'cascade';

/** What a cascade version was republished for: a cost revision (products) or a product version (plans). */
export interface CascadeSource {
  entityType: 'cost' | 'product';
  entityId: string;
  versionId: string;
  version: number;
}

/** The principal of the root action; `via: "cascade"` when a cascade acted on its behalf. */
export interface CreatedBy {
  type: 'api_key' | 'user' | 'system';
  id: string | null;
  via?: 'cascade';
}

/** One numbered row of an entity's history: the lifecycle columns shared by product and plan versions. */
export interface VersionRecord {
  id: string;
  version: number;
  status: VersionStatus;
  archivedReason: ArchivedReason | null;
  origin: VersionOrigin | null;
  baseVersionId: string | null;
  contentHash: string;
  changeId: string | null;
  scheduledFor: Date | null;
  effectiveFrom: Date | null;
  effectiveTo: Date | null;
  publishedAt: Date | null;
  releaseName: string | null;
  releaseNote: string | null;
  cascadeSource: CascadeSource | null;
  createdBy: CreatedBy;
  createdAt: Date;
  touchedAt: Date;
  errorCode: string | null;
  errorMessage: string | null;
  /** Why an errored row failed, beyond its code (a formula's keys, the retired keys of a cascade). */
  errorDetails: Record<string, unknown> | null;
}

/** A deterministic refusal recorded on an errored row. */
export interface VersionError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface ReleaseNotes {
  releaseName?: string | null;
  releaseNote?: string | null;
}

/** What the owning aggregate must do to a draft's content after a line operation. */
/** `recopyFrom: null` means the initial content of a never-published entity. */
export type DraftFollowUp = { recopyFrom: string | null } | null;

/** Everything the ordered publish guard needs beyond the line itself. */
export interface GoLiveRequest {
  stagedVersionId: string;
  /** The entity is archived (or deleted). */
  archived: boolean;
  now: Date;
  /** Absent: publish now. */
  scheduledFor?: Date;
  /** Products: the draft may not go live before this (a PRODUCT cost's effective_at). */
  notBefore?: Date | null;
  /** `publish_check` asks even when no draft is open. */
  checkOnly?: boolean;
  /** §2.7 step 8: throws the content refusal (formula, allowances, cadence). */
  checkContent: () => void;
}

/**
 * The version state machine shared by products and plans (catalog model §2): version numbers,
 * the working draft, the head, the scheduled queue, live intervals. It holds the rows that can
 * still change — head, draft, queue, and the draft's base — and knows content only by its hash;
 * the owning aggregate copies content rows when told to.
 */
export class VersionLine {
  private readonly rows = new Map<string, VersionRecord>();
  private readonly dirty = new Set<string>();
  private readonly inserted = new Set<string>();
  /** Each restored row's status as loaded: what `transitions` compares with. */
  private readonly restoredStatus = new Map<string, VersionStatus>();

  private constructor(
    private nextNumber: number,
    /** The content hash of a never-published entity's initial content. */
    private readonly initialHash: string,
    rows: VersionRecord[],
  ) {
    for (const row of rows) {
      this.rows.set(row.id, { ...row });
      this.restoredStatus.set(row.id, row.status);
    }
  }

  static start(initialHash: string): VersionLine {
    return new VersionLine(1, initialHash, []);
  }

  static restore(state: { nextVersionNo: number; initialHash: string; rows: VersionRecord[] }): VersionLine {
    return new VersionLine(state.nextVersionNo, state.initialHash, state.rows);
  }

  get nextVersionNo(): number {
    return this.nextNumber;
  }

  get head(): VersionRecord | undefined {
    return this.find((row) => row.status === 'published');
  }

  get draft(): VersionRecord | undefined {
    return this.find((row) => row.status === 'draft');
  }

  /** The scheduled rows, soonest first. */
  get queue(): VersionRecord[] {
    return [...this.rows.values()]
      .filter((row) => row.status === 'scheduled')
      .sort((a, b) => a.scheduledFor!.getTime() - b.scheduledFor!.getTime());
  }

  get nextReleaseAt(): Date | null {
    return this.queue[0]?.scheduledFor ?? null;
  }

  row(id: string): VersionRecord | undefined {
    return this.rows.get(id);
  }

  /** 1-based position in the queue, computed on read so a cancel or a fire renumbers nothing. */
  rank(id: string): number | null {
    const index = this.queue.findIndex((row) => row.id === id);
    return index < 0 ? null : index + 1;
  }

  /**
   * Rows created or changed since restore, in an order that is safe to write one after the other:
   * changed rows first, those leaving the draft or head slot (archived) before those taking one,
   * then new rows — a new row may take the number a moved-up draft held until now.
   */
  changedRows(): VersionRecord[] {
    const order = { archived: 0, draft: 1, scheduled: 2, published: 3 } as const;
    const rank = (row: VersionRecord) => (this.inserted.has(row.id) ? 4 : 0) + order[row.status];
    return [...this.dirty].map((id) => this.rows.get(id)!).sort((a, b) => rank(a) - rank(b));
  }

  /** Rows whose status differs from the one they were restored with (`from: null`: created since), in write order. */
  transitions(): { row: VersionRecord; from: VersionStatus | null }[] {
    return this.changedRows()
      .map((row) => ({ row, from: this.restoredStatus.get(row.id) ?? null }))
      .filter(({ row, from }) => row.status !== from);
  }

  /** Whether a row was created since restore (nothing of it is stored yet). */
  isNew(id: string): boolean {
    return this.inserted.has(id);
  }

  /** A draft holds staged edits when its content differs from its base's (or the initial content). */
  draftHoldsEdits(): boolean {
    const draft = this.draft;
    return draft !== undefined && draft.contentHash !== this.baseHashOf(draft);
  }

  /**
   * Opens the working draft on a base (omitted: the head, or nothing before a first go-live), or
   * re-bases an edit-free draft. Returns whether content must be copied, and from which row
   * (`null` base: the initial content).
   */
  openDraft(input: { id: string; baseVersionId?: string; now: Date; createdBy: CreatedBy }): {
    draft: VersionRecord;
    copyFrom: string | null;
    copied: boolean;
  } {
    const base = this.chooseBase(input.baseVersionId);
    const existing = this.draft;
    if (existing) {
      if (existing.baseVersionId === (base?.id ?? null)) return { draft: existing, copyFrom: null, copied: false };
      if (this.draftHoldsEdits()) {
        throw CatalogErrors.DRAFT_HAS_STAGED_EDITS.create(
          'The working draft holds staged edits; discard them before re-basing it.',
          {
            param: 'base_version_id',
            details: { staged_version_id: existing.id, base_version_id: existing.baseVersionId },
          },
        );
      }
      this.update(existing.id, {
        baseVersionId: base?.id ?? null,
        contentHash: base?.contentHash ?? this.initialHash,
        touchedAt: input.now,
      });
      return { draft: this.rows.get(existing.id)!, copyFrom: base?.id ?? null, copied: true };
    }
    const draft = this.blankRow(input.id, this.nextNumber, base, input.now, input.createdBy);
    this.insert(draft);
    return { draft, copyFrom: base?.id ?? null, copied: true };
  }

  /** A staging edit changed the draft's content. */
  touchDraft(contentHash: string, now: Date): void {
    const draft = this.requireDraft();
    this.update(draft.id, { contentHash, touchedAt: now });
  }

  /** Discarding uses up the draft's number. */
  discardDraft(now: Date): VersionRecord {
    const draft = this.requireDraft();
    this.update(draft.id, { status: 'archived', archivedReason: 'discarded', touchedAt: now });
    this.nextNumber = draft.version + 1;
    return this.rows.get(draft.id)!;
  }

  /**
   * The one ordered publish guard of model §2.7 (steps 1–8), for publish-now, scheduling and
   * `publish_check`. Throws the first refusal.
   */
  assertCanGoLive(request: GoLiveRequest): VersionRecord {
    const draft = this.draft;
    if (!request.checkOnly) {
      const staged = this.rows.get(request.stagedVersionId);
      if (!staged) throw catalogNotFound('staged_version_id', 'version');
      if (staged.status !== 'draft') {
        throw CatalogErrors.PUBLISH_NOT_WORKING_DRAFT.create(`Version ${staged.version} is not the working draft.`, {
          param: 'staged_version_id',
          details: { status: staged.status },
        });
      }
    }
    if (request.archived)
      throw CatalogErrors.PUBLISH_ENTITY_ARCHIVED.create('The entity is archived; nothing of it can go live.');
    const head = this.head;
    if (!draft || (head && draft.contentHash === head.contentHash)) {
      throw CatalogErrors.PUBLISH_NOTHING_STAGED.create('The working draft holds nothing that differs from the live version.');
    }
    if (request.scheduledFor) {
      if (request.scheduledFor.getTime() <= request.now.getTime()) {
        throw CatalogErrors.PUBLISH_SCHEDULE_IN_PAST.create('scheduled_for must be in the future.', { param: 'scheduled_for' });
      }
      if (this.queue.some((row) => row.scheduledFor!.getTime() === request.scheduledFor!.getTime())) {
        throw CatalogErrors.PUBLISH_SCHEDULE_TAKEN.create('Another release of this entity is scheduled at that instant.', {
          param: 'scheduled_for',
        });
      }
    }
    const goLiveAt = request.scheduledFor ?? request.now;
    const base = draft.baseVersionId ? this.rows.get(draft.baseVersionId) : undefined;
    if (base?.status === 'scheduled' && goLiveAt.getTime() <= base.scheduledFor!.getTime()) {
      throw CatalogErrors.PUBLISH_BEFORE_BASE_RELEASE.create(
        `The draft is based on the release of ${base.scheduledFor!.toISOString()}; it cannot go live before it.`,
        {
          param: request.scheduledFor ? 'scheduled_for' : undefined,
          details: { base_version: base.version, base_scheduled_for: base.scheduledFor },
        },
      );
    }
    if (request.notBefore && goLiveAt.getTime() < request.notBefore.getTime()) {
      throw CatalogErrors.PUBLISH_BEFORE_COST_EFFECTIVE.create(
        `A staged cost value takes effect at ${request.notBefore.toISOString()}; the draft cannot go live earlier.`,
        { param: request.scheduledFor ? 'scheduled_for' : undefined, details: { not_before: request.notBefore } },
      );
    }
    if (this.isStale(draft)) {
      throw CatalogErrors.PUBLISH_STALE_BASE.create(
        'The draft was based on a version that is no longer live, and the live content has changed since; re-base or discard it.',
        { details: { base_version_id: draft.baseVersionId, head_version_id: head?.id ?? null } },
      );
    }
    request.checkContent();
    return draft;
  }

  /** The draft goes live now (origin manual). Returns the previous head, now superseded. */
  publishDraft(input: { at: Date; changeId: string } & ReleaseNotes): { published: VersionRecord; superseded?: VersionRecord } {
    const draft = this.requireDraft();
    this.update(draft.id, {
      origin: 'manual',
      changeId: input.changeId,
      releaseName: input.releaseName ?? null,
      releaseNote: input.releaseNote ?? null,
    });
    this.nextNumber = draft.version + 1;
    return this.goLive(draft.id, input.at);
  }

  /** The draft is frozen into the queue, bound to its pending change; the draft slot is free again. */
  scheduleDraft(input: { scheduledFor: Date; changeId: string; now: Date } & ReleaseNotes): VersionRecord {
    const draft = this.requireDraft();
    this.update(draft.id, {
      status: 'scheduled',
      origin: 'scheduled_release',
      scheduledFor: input.scheduledFor,
      changeId: input.changeId,
      releaseName: input.releaseName ?? null,
      releaseNote: input.releaseNote ?? null,
      touchedAt: input.now,
    });
    this.nextNumber = draft.version + 1;
    return this.rows.get(draft.id)!;
  }

  /** The scheduled rows due at `now`, in firing order. */
  dueReleases(now: Date): VersionRecord[] {
    return this.queue.filter((row) => row.scheduledFor!.getTime() <= now.getTime());
  }

  /** A release fires: it goes live at exactly its scheduled_for. */
  fireRelease(versionId: string): { published: VersionRecord; superseded?: VersionRecord; draftFollowUp: DraftFollowUp } {
    const row = this.rows.get(versionId);
    if (row?.status !== 'scheduled') throw this.invalidTransition(row, 'published');
    const previousHead = this.head;
    const result = this.goLive(versionId, row.scheduledFor!);
    return { ...result, draftFollowUp: this.followHead(previousHead) };
  }

  /** Firing failed a precondition: the row is archived as errored; the draft's base falls back to the head. */
  errorRelease(versionId: string, error: VersionError, now: Date): { row: VersionRecord; draftFollowUp: DraftFollowUp } {
    const row = this.rows.get(versionId);
    if (row?.status !== 'scheduled') throw this.invalidTransition(row, 'archived');
    this.update(versionId, {
      status: 'archived',
      archivedReason: 'errored',
      errorCode: error.code,
      errorMessage: error.message,
      errorDetails: error.details ?? null,
      touchedAt: now,
    });
    return { row: this.rows.get(versionId)!, draftFollowUp: this.afterBaseWithdrawn(versionId) };
  }

  /** A pending change is canceled (or the entity archived): the release leaves the queue. */
  cancelRelease(versionId: string, now: Date): { row: VersionRecord; dependents: VersionRecord[]; draftFollowUp: DraftFollowUp } {
    const row = this.rows.get(versionId);
    if (row?.status !== 'scheduled') throw this.invalidTransition(row, 'archived');
    const dependents = [...this.rows.values()].filter(
      (other) => other.baseVersionId === versionId && (other.status === 'scheduled' || other.status === 'draft'),
    );
    this.update(versionId, { status: 'archived', archivedReason: 'canceled', touchedAt: now });
    return { row: this.rows.get(versionId)!, dependents, draftFollowUp: this.afterBaseWithdrawn(versionId) };
  }

  /**
   * A republish (cascade, or a bulk republish with origin manual) that never uses the draft slot:
   * the new row takes the next number and an open draft moves up by one.
   */
  republish(input: {
    id: string;
    at: Date;
    origin: 'cascade' | 'manual';
    cascadeSource: CascadeSource | null;
    createdBy: CreatedBy;
  }): { published: VersionRecord; superseded?: VersionRecord } {
    const head = this.head;
    const row = this.newFrozenRow(input.id, head, input.at, input.createdBy);
    row.origin = input.origin;
    row.cascadeSource = input.cascadeSource;
    this.insert(row);
    const result = this.goLive(row.id, input.at);
    // Content is unchanged, so an edit-free draft on the old head simply follows the new one.
    const draft = this.draft;
    if (draft && head && draft.baseVersionId === head.id && draft.contentHash === head.contentHash) {
      this.update(draft.id, { baseVersionId: row.id });
    }
    return result;
  }

  /** A cascade attempt that failed deterministically: an errored row is kept; the head keeps billing. */
  recordErroredRepublish(input: {
    id: string;
    at: Date;
    cascadeSource: CascadeSource;
    createdBy: CreatedBy;
    error: VersionError;
  }): VersionRecord {
    const row = this.newFrozenRow(input.id, this.head, input.at, input.createdBy);
    Object.assign(row, {
      status: 'archived',
      archivedReason: 'errored',
      origin: 'cascade',
      cascadeSource: input.cascadeSource,
      errorCode: input.error.code,
      errorMessage: input.error.message,
      errorDetails: input.error.details ?? null,
    });
    this.insert(row);
    return row;
  }

  private newFrozenRow(id: string, base: VersionRecord | undefined, at: Date, createdBy: CreatedBy): VersionRecord {
    const number = this.nextNumber;
    this.nextNumber += 1;
    const draft = this.draft;
    if (draft) this.update(draft.id, { version: this.nextNumber });
    return this.blankRow(id, number, base, at, createdBy);
  }

  /** A new row: a draft on `base` (its content hash), nothing else set yet. */
  private blankRow(id: string, version: number, base: VersionRecord | undefined, at: Date, createdBy: CreatedBy): VersionRecord {
    return {
      id,
      version,
      status: 'draft',
      archivedReason: null,
      origin: null,
      baseVersionId: base?.id ?? null,
      contentHash: base?.contentHash ?? this.initialHash,
      changeId: null,
      scheduledFor: null,
      effectiveFrom: null,
      effectiveTo: null,
      publishedAt: null,
      releaseName: null,
      releaseNote: null,
      cascadeSource: null,
      createdBy,
      createdAt: at,
      touchedAt: at,
      errorCode: null,
      errorMessage: null,
      errorDetails: null,
    };
  }

  private goLive(id: string, at: Date): { published: VersionRecord; superseded?: VersionRecord } {
    const previous = this.head;
    if (previous) {
      this.update(previous.id, { status: 'archived', archivedReason: 'superseded', effectiveTo: at, touchedAt: at });
    }
    this.update(id, { status: 'published', effectiveFrom: at, effectiveTo: null, publishedAt: at, touchedAt: at });
    return { published: this.rows.get(id)!, superseded: previous && this.rows.get(previous.id) };
  }

  /** After a release went live: an edit-free draft on the old head is re-copied from the new head. */
  private followHead(previousHead: VersionRecord | undefined): DraftFollowUp {
    const draft = this.draft;
    const head = this.head!;
    if (!draft || draft.baseVersionId !== (previousHead?.id ?? null) || this.draftHoldsEdits()) return null;
    this.update(draft.id, { baseVersionId: head.id, contentHash: head.contentHash });
    return { recopyFrom: head.id };
  }

  /** A release the draft was based on left the queue: the draft's base becomes the head. */
  private afterBaseWithdrawn(versionId: string): DraftFollowUp {
    const draft = this.draft;
    if (!draft || draft.baseVersionId !== versionId) return null;
    const head = this.head;
    const editFree = draft.contentHash === this.rows.get(versionId)!.contentHash;
    this.update(draft.id, { baseVersionId: head?.id ?? null });
    if (!editFree) return null;
    this.update(draft.id, { contentHash: head?.contentHash ?? this.initialHash });
    return { recopyFrom: head?.id ?? null };
  }

  /** §2.4: stale when the base is neither the head nor a pending release and its content differs from the head's. */
  private isStale(draft: VersionRecord): boolean {
    if (!draft.baseVersionId) return false;
    const base = this.rows.get(draft.baseVersionId);
    if (!base || base.status === 'published' || base.status === 'scheduled') return false;
    return base.contentHash !== (this.head?.contentHash ?? this.initialHash);
  }

  private chooseBase(baseVersionId: string | undefined): VersionRecord | undefined {
    if (baseVersionId === undefined) return this.head;
    const base = this.rows.get(baseVersionId);
    if (!base || (base.status !== 'published' && base.status !== 'scheduled')) {
      throw CatalogErrors.INVALID_BASE_VERSION.create('A draft can be based on the live version or a scheduled release only.', {
        param: 'base_version_id',
      });
    }
    return base;
  }

  private baseHashOf(draft: VersionRecord): string {
    if (!draft.baseVersionId) return this.initialHash;
    return this.rows.get(draft.baseVersionId)?.contentHash ?? this.initialHash;
  }

  private requireDraft(): VersionRecord {
    const draft = this.draft;
    if (!draft) throw CatalogErrors.STAGED_DRAFT_NOT_FOUND.create('There is no staged draft.');
    return draft;
  }

  private invalidTransition(row: VersionRecord | undefined, to: string): DomainError {
    if (!row) return catalogNotFound('version', 'version');
    return SharedErrors.INVALID_STATUS_TRANSITION.create(`A ${row.status} version cannot become ${to}.`, {
      details: { from: row.status, to, allowed: row.status === 'scheduled' ? ['published', 'archived'] : [] },
    });
  }

  private find(predicate: (row: VersionRecord) => boolean): VersionRecord | undefined {
    for (const row of this.rows.values()) if (predicate(row)) return row;
    return undefined;
  }

  private insert(row: VersionRecord): void {
    this.rows.set(row.id, row);
    this.dirty.add(row.id);
    this.inserted.add(row.id);
  }

  private update(id: string, changes: Partial<VersionRecord>): void {
    const row = this.rows.get(id)!;
    this.rows.set(id, { ...row, ...changes });
    this.dirty.add(id);
  }
}
