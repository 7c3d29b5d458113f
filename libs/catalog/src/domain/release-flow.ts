import { DomainError, newId } from '@app/shared-kernel';
import { CatalogErrors } from './catalog-errors';
import { CreatedBy, DraftFollowUp, ReleaseNotes, VersionLine, VersionRecord } from './version-line';

/** How an aggregate's version content is started, hashed and copied into a new version. */
export interface ContentRules<C> {
  initial: C;
  hash(content: C): string;
  /** A fresh copy of a version's content for another version (a draft opening on it, a republish). */
  copy(source: C): C;
}

/** The live fields every versioned catalog entity updates when a version goes live. */
interface GoLiveState {
  status: string;
  publishedAt: Date | null;
  updatedAt: Date;
}

/** After a go-live: a draft entity becomes active, and it was published when this version took effect. */
export function wentLive<S extends GoLiveState>(state: S, published: VersionRecord, now: Date): S {
  return {
    ...state,
    status: state.status === 'draft' ? 'active' : state.status,
    publishedAt: published.effectiveFrom,
    updatedAt: now,
  };
}

/**
 * The release flow products and plans share (catalog model §2): a version line with the content
 * each of its versions holds, the working draft's staging, the go-live guard, and the content
 * copies the line asks for after a release fires, errors or is canceled. An aggregate holds one
 * and adds what is its own (costs, memberships, frozen details).
 */
export class ReleaseFlow<C> {
  private readonly dirty = new Set<string>();

  constructor(
    readonly line: VersionLine,
    private readonly contents: Map<string, C>,
    private readonly rules: ContentRules<C>,
    /** "product" or "plan", for the refusals. */
    private readonly entity: string,
  ) {}

  contentOf(versionId: string): C | undefined {
    return this.contents.get(versionId);
  }

  get draftContent(): C | undefined {
    const draft = this.line.draft;
    return draft && this.contents.get(draft.id);
  }

  /** For the repository: the versions whose content rows changed since load (`content: null`: gone). */
  get changedVersionIds(): string[] {
    return [...this.dirty];
  }

  /** Another of the version's rows changed (a plan's frozen details): its content rows are written again. */
  touch(versionId: string): void {
    this.dirty.add(versionId);
  }

  assertNotArchived(archived: boolean): void {
    if (archived) throw CatalogErrors.ENTITY_ARCHIVED.create(`The ${this.entity} is archived; its content can no longer change.`);
  }

  openDraft(input: { baseVersionId?: string; now: Date; createdBy: CreatedBy }): VersionRecord {
    const { draft, copyFrom, copied } = this.line.openDraft({ id: newId(), ...input });
    if (copied) this.copyContent(copyFrom, draft.id);
    return draft;
  }

  discardDraft(now: Date): VersionRecord {
    const draft = this.line.discardDraft(now);
    this.contents.delete(draft.id);
    this.dirty.add(draft.id);
    return draft;
  }

  /** Replaces the open draft's content with `edit`'s and rehashes it; the caller has opened the draft. */
  stage(edit: (content: C) => C, now: Date): void {
    const draft = this.line.draft!;
    const content = edit(this.contents.get(draft.id)!);
    this.contents.set(draft.id, content);
    this.dirty.add(draft.id);
    this.line.touchDraft(this.rules.hash(content), now);
  }

  /** §2.7: the line's ordered guard; `refusal` is the draft's content refused at the go-live instant. */
  assertCanGoLive(input: {
    stagedVersionId: string;
    archived: boolean;
    now: Date;
    scheduledFor?: Date;
    notBefore?: Date | null;
    refusal?: DomainError;
  }): VersionRecord {
    const { refusal, ...request } = input;
    return this.line.assertCanGoLive({
      ...request,
      checkContent: () => {
        if (refusal) throw refusal;
      },
    });
  }

  publishDraft(input: { changeId: string; now: Date } & ReleaseNotes): VersionRecord {
    return this.line.publishDraft({
      at: input.now,
      changeId: input.changeId,
      releaseName: input.releaseName,
      releaseNote: input.releaseNote,
    }).published;
  }

  /**
   * A due release fires (job or catch-up): refused when the entity is archived or its content no
   * longer resolves (the row is kept errored), else it goes live; the draft follows either way.
   */
  fireRelease(
    versionId: string,
    input: { archived: boolean; refusal?: DomainError; now: Date },
  ): { published: VersionRecord; error?: undefined } | { published?: undefined; error: DomainError } {
    const error = input.archived
      ? CatalogErrors.PUBLISH_ENTITY_ARCHIVED.create(`The ${this.entity} is archived.`)
      : input.refusal;
    if (error) {
      const { draftFollowUp } = this.line.errorRelease(
        versionId,
        { code: error.code, message: error.message, details: error.details },
        input.now,
      );
      this.follow(draftFollowUp);
      return { error };
    }
    const { published, draftFollowUp } = this.line.fireRelease(versionId);
    this.follow(draftFollowUp);
    return { published };
  }

  cancelRelease(versionId: string, now: Date): { row: VersionRecord; dependents: VersionRecord[] } {
    const { row, dependents, draftFollowUp } = this.line.cancelRelease(versionId, now);
    this.follow(draftFollowUp);
    return { row, dependents };
  }

  /** A new version (republished, or kept errored) holds a copy of the head's content. */
  keepHeadContent(versionId: string, headId: string): void {
    this.contents.set(versionId, this.rules.copy(this.contents.get(headId)!));
    this.dirty.add(versionId);
  }

  private follow(followUp: DraftFollowUp): void {
    if (followUp) this.copyContent(followUp.recopyFrom, this.line.draft!.id);
  }

  private copyContent(fromVersionId: string | null, toVersionId: string): void {
    const source = fromVersionId === null ? this.rules.initial : this.contents.get(fromVersionId)!;
    this.contents.set(toVersionId, this.rules.copy(source));
    this.dirty.add(toVersionId);
  }
}
