import { createHash } from 'node:crypto';
import { canonicalJson, DomainError, newId, SharedErrors } from '@app/shared-kernel';
import { CatalogErrors } from './catalog-errors';
import { CostDisplay, CostDisplayChanges, CostValue, sameValue } from './cost-value';
import { ProductCost, ProductCosts } from './product-costs';
import { ContentRules, ReleaseFlow, wentLive } from './release-flow';
import { CreatedBy, ReleaseNotes, VersionLine, VersionRecord } from './version-line';

export type { ProductCost, ProductCostState } from './product-costs';

/** A PRODUCT cost in a version's content: the cost and the revision this version holds. */
export interface CostEntry {
  key: string;
  costId: string;
  revisionNo: number;
  value: CostValue;
}

/** What only a publish changes: the price formula and the PRODUCT cost entries. */
export interface ProductContent {
  priceExpression: string | null;
  entries: CostEntry[];
  /** The draft cannot go live before this (a staged PRODUCT cost's effective_at). */
  notBefore: Date | null;
}

/** One key a live version resolved at go-live, with its value: billing prices the version from these alone. */
export interface MaterializedCost {
  key: string;
  costId: string;
  scope: 'ORG' | 'PRODUCT';
  revisionNo: number;
  kind: 'amount' | 'expression';
  expression: string | null;
  value: string;
}

export type Materialization =
  { ok: true; unitPrice: string | null; costs: MaterializedCost[] } | { ok: false; error: DomainError };

export interface ProductDetails {
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
}

export interface ProductState {
  organizationId: string;
  workspaceId: string;
  id: string;
  details: ProductDetails;
  status: 'draft' | 'active' | 'archived';
  publishedAt: Date | null;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const INITIAL_CONTENT: ProductContent = { priceExpression: null, entries: [], notBefore: null };

export function productContentHash(content: ProductContent): string {
  const costs = Object.fromEntries(
    content.entries.map((entry) => [
      entry.key,
      { cost_id: entry.costId, amount: entry.value.amount, expression: entry.value.expression },
    ]),
  );
  return createHash('sha256')
    .update(canonicalJson({ price_expression: content.priceExpression, costs }))
    .digest('hex');
}

const CONTENT_RULES: ContentRules<ProductContent> = {
  initial: INITIAL_CONTENT,
  hash: productContentHash,
  copy: (source) => ({
    priceExpression: source.priceExpression,
    entries: source.entries.map((entry) => ({ ...entry })),
    notBefore: null,
  }),
};
const INITIAL_HASH = productContentHash(INITIAL_CONTENT);

/**
 * A product: live display fields, a version line, the content of its draft, head and queue, and
 * its PRODUCT costs (which belong to this aggregate). Every staging edit goes into the working
 * draft, opening one on the head when none is open.
 */
export class Product {
  private readonly materialized = new Map<string, { unitPrice: string | null; costs: MaterializedCost[] }>();
  private readonly flow: ReleaseFlow<ProductContent>;

  private constructor(
    private state: ProductState,
    readonly line: VersionLine,
    contents: Map<string, ProductContent>,
    private readonly costs: ProductCosts,
  ) {
    this.flow = new ReleaseFlow(line, contents, CONTENT_RULES, 'product');
  }

  static restore(input: {
    state: ProductState;
    nextVersionNo: number;
    versions: VersionRecord[];
    contents: Map<string, ProductContent>;
    costs: ProductCost[];
  }): Product {
    return new Product(
      { ...input.state },
      VersionLine.restore({ nextVersionNo: input.nextVersionNo, initialHash: INITIAL_HASH, rows: input.versions }),
      new Map(input.contents),
      new ProductCosts(new Map(input.costs.map((cost) => [cost.id, { ...cost }]))),
    );
  }

  static create(input: { organizationId: string; workspaceId: string; details: ProductDetails; now: Date }): Product {
    return new Product(
      {
        organizationId: input.organizationId,
        workspaceId: input.workspaceId,
        id: newId(),
        details: input.details,
        status: 'draft',
        publishedAt: null,
        archivedAt: null,
        createdAt: input.now,
        updatedAt: input.now,
      },
      VersionLine.start(INITIAL_HASH),
      new Map(),
      new ProductCosts(new Map()),
    );
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<ProductState> {
    return this.state;
  }

  get archived(): boolean {
    return this.state.status === 'archived';
  }

  contentOf(versionId: string): ProductContent | undefined {
    return this.flow.contentOf(versionId);
  }

  get draftContent(): ProductContent | undefined {
    return this.flow.draftContent;
  }

  cost(costId: string): ProductCost | undefined {
    return this.costs.get(costId);
  }

  get allCosts(): ProductCost[] {
    return this.costs.all;
  }

  /** For the repository: what changed since load. */
  get pendingWrites() {
    return {
      versions: this.line.changedRows(),
      /** `content: null`: the version's content rows are gone (a discarded draft). */
      contents: this.flow.changedVersionIds.map((id) => ({ versionId: id, content: this.flow.contentOf(id) ?? null })),
      materialized: [...this.materialized].map(([versionId, result]) => ({ versionId, ...result })),
      ...this.costs.pendingWrites,
    };
  }

  updateDetails(changes: Partial<ProductDetails>, now: Date): void {
    this.state = { ...this.state, details: { ...this.state.details, ...changes }, updatedAt: now };
  }

  /** Archive cancels the queue (the caller cancels the changes) and keeps the head billing. */
  archive(now: Date): VersionRecord[] {
    if (this.archived) return [];
    const canceled = this.line.queue.map((row) => this.line.cancelRelease(row.id, now).row);
    this.recomputeCostStates(now);
    this.state = { ...this.state, status: 'archived', archivedAt: now, updatedAt: now };
    return canceled;
  }

  openDraft(input: { baseVersionId?: string; now: Date; createdBy: CreatedBy }): VersionRecord {
    this.assertNotArchived();
    const draft = this.flow.openDraft(input);
    this.recomputeCostStates(input.now);
    return draft;
  }

  discardDraft(now: Date): VersionRecord {
    const draft = this.flow.discardDraft(now);
    this.recomputeCostStates(now);
    return draft;
  }

  stagePriceExpression(expression: string | null, now: Date, createdBy: CreatedBy): void {
    this.stage(now, createdBy, (content) => ({ ...content, priceExpression: expression }));
  }

  addCost(input: {
    key: string;
    value: CostValue;
    display: CostDisplay;
    effectiveAt: Date;
    now: Date;
    createdBy: CreatedBy;
  }): ProductCost {
    this.assertNotArchived();
    // Open first: the cost must not exist while an opening draft recomputes cost states.
    this.ensureDraft(input.now, input.createdBy);
    const { cost, revision } = this.costs.create(input);
    this.stage(input.now, input.createdBy, (content) => ({
      ...content,
      entries: [...content.entries, { key: cost.key, costId: cost.id, revisionNo: revision.revisionNo, value: input.value }],
      notBefore: laterOf(content.notBefore, input.effectiveAt, input.now),
    }));
    return this.costs.get(cost.id)!;
  }

  /** A value save stages a new revision in the working draft; it reaches billing when the draft goes live. */
  stageCostValue(costId: string, value: CostValue, effectiveAt: Date, now: Date, createdBy: CreatedBy): void {
    const cost = this.costs.require(costId);
    if (cost.state !== 'active') {
      throw CatalogErrors.COST_NOT_ACTIVE.create('Only an active cost takes a new value; restore it first.');
    }
    this.assertNotArchived();
    this.ensureDraft(now, createdBy);
    const content = this.draftContent!;
    const entry = content.entries.find((candidate) => candidate.costId === costId)!;
    const base = this.baseEntryOf(costId);
    // Back to the base's value: the draft points at the base's revision again (a reverted edit is no edit).
    const revisionNo =
      base && sameValue(base.value, value) && base.value.kind === value.kind
        ? base.revisionNo
        : this.costs.appendRevision(cost, value, effectiveAt, now, createdBy).revisionNo;
    this.stage(now, createdBy, (current) => ({
      ...current,
      entries: current.entries.map((candidate) =>
        candidate.costId === costId
          ? { ...entry, revisionNo, value: revisionNo === base?.revisionNo ? base.value : value }
          : candidate,
      ),
      notBefore: revisionNo === base?.revisionNo ? current.notBefore : laterOf(current.notBefore, effectiveAt, now),
    }));
  }

  editCostDisplay(costId: string, changes: CostDisplayChanges, now: Date): void {
    this.costs.editDisplay(costId, changes, now);
  }

  /**
   * Removing a released cost drops it from the working draft (removed in draft); a cost never
   * released is deleted with its revisions. Removing a removed cost changes nothing.
   */
  removeCost(costId: string, now: Date, createdBy: CreatedBy): void {
    const cost = this.costs.require(costId);
    if (cost.state !== 'active') return;
    this.assertNotArchived();
    this.ensureDraft(now, createdBy);
    this.stage(now, createdBy, (content) => ({
      ...content,
      entries: content.entries.filter((entry) => entry.costId !== costId),
    }));
    if (!cost.released) this.costs.deleteUnreleased(costId);
  }

  /** Back into the working draft with the head's revision; 409 when the head does not carry the cost. */
  restoreCost(costId: string, now: Date, createdBy: CreatedBy): void {
    const cost = this.costs.require(costId);
    if (cost.state === 'active') return;
    const head = this.line.head;
    const headEntry = head && this.flow.contentOf(head.id)?.entries.find((entry) => entry.costId === costId);
    if (!headEntry) {
      throw CatalogErrors.COST_KEY_NOT_IN_HEAD.create(`The live version does not carry the key "${cost.key}" for this cost.`, {
        details: { key: cost.key },
      });
    }
    this.assertNotArchived();
    this.ensureDraft(now, createdBy);
    if (this.draftContent!.entries.some((entry) => entry.key === cost.key)) {
      throw SharedErrors.ALREADY_EXISTS.create(`The working draft already has a cost with the key "${cost.key}".`, {
        param: 'key',
      });
    }
    this.stage(now, createdBy, (content) => ({ ...content, entries: [...content.entries, { ...headEntry }] }));
  }

  /** §2.7 for this product; `materialization` is the draft's content resolved at the go-live instant. */
  assertCanGoLive(input: {
    stagedVersionId: string;
    now: Date;
    scheduledFor?: Date;
    materialization?: Materialization;
  }): VersionRecord {
    return this.flow.assertCanGoLive({
      stagedVersionId: input.stagedVersionId,
      archived: this.archived,
      now: input.now,
      scheduledFor: input.scheduledFor,
      notBefore: this.draftContent?.notBefore ?? null,
      refusal: input.materialization && !input.materialization.ok ? input.materialization.error : undefined,
    });
  }

  publishDraft(
    input: { stagedVersionId: string; changeId: string; now: Date; materialization: Materialization } & ReleaseNotes,
  ): VersionRecord {
    this.assertCanGoLive({ ...input });
    const published = this.flow.publishDraft(input);
    this.recordGoLive(published, input.materialization, input.now);
    return published;
  }

  scheduleDraft(
    input: {
      stagedVersionId: string;
      changeId: string;
      scheduledFor: Date;
      now: Date;
      materialization: Materialization;
    } & ReleaseNotes,
  ): VersionRecord {
    this.assertCanGoLive({ ...input });
    const row = this.line.scheduleDraft({ ...input });
    this.recomputeCostStates(input.now);
    this.markReleased(row.id);
    this.state = { ...this.state, updatedAt: input.now };
    return row;
  }

  /** A due release fires (job or catch-up): steps 2 and 8 again, then live at its scheduled_for. */
  fireRelease(
    versionId: string,
    materialization: Materialization,
    now: Date,
  ): { published?: VersionRecord; error?: DomainError } {
    const fired = this.flow.fireRelease(versionId, {
      archived: this.archived,
      refusal: materialization.ok ? undefined : materialization.error,
      now,
    });
    if (fired.error) {
      this.recomputeCostStates(now);
      return { error: fired.error };
    }
    this.recordGoLive(fired.published, materialization, now);
    return { published: fired.published };
  }

  cancelRelease(versionId: string, now: Date): { row: VersionRecord; dependents: VersionRecord[] } {
    const canceled = this.flow.cancelRelease(versionId, now);
    this.recomputeCostStates(now);
    this.state = { ...this.state, updatedAt: now };
    return canceled;
  }

  /**
   * A cascade re-materialized the head at `now`: a new version with the same content goes live,
   * or, when resolution failed, an errored row is kept and the head keeps billing.
   */
  republish(input: {
    now: Date;
    createdBy: CreatedBy;
    cascadeSource: NonNullable<VersionRecord['cascadeSource']>;
    materialization: Materialization;
  }): { published?: VersionRecord; errored?: VersionRecord } {
    const head = this.line.head!;
    if (!input.materialization.ok) {
      const errored = this.line.recordErroredRepublish({
        id: newId(),
        at: input.now,
        cascadeSource: input.cascadeSource,
        createdBy: input.createdBy,
        error: {
          code: input.materialization.error.code,
          message: input.materialization.error.message,
          details: input.materialization.error.details,
        },
      });
      this.flow.keepHeadContent(errored.id, head.id);
      return { errored };
    }
    const { published } = this.line.republish({
      id: newId(),
      at: input.now,
      origin: 'cascade',
      cascadeSource: input.cascadeSource,
      createdBy: input.createdBy,
    });
    this.flow.keepHeadContent(published.id, head.id);
    this.recordGoLive(published, input.materialization, input.now);
    return { published };
  }

  private recordGoLive(published: VersionRecord, materialization: Materialization, now: Date): void {
    if (!materialization.ok) throw materialization.error;
    this.materialized.set(published.id, { unitPrice: materialization.unitPrice, costs: materialization.costs });
    this.markReleased(published.id);
    this.recomputeCostStates(now);
    this.state = wentLive(this.state, published, now);
  }

  private markReleased(versionId: string): void {
    this.costs.markReleased(this.flow.contentOf(versionId)?.entries.map((entry) => entry.costId) ?? []);
  }

  private stage(now: Date, createdBy: CreatedBy, edit: (content: ProductContent) => ProductContent): void {
    this.assertNotArchived();
    this.ensureDraft(now, createdBy);
    this.flow.stage(edit, now);
    this.recomputeCostStates(now);
    this.state = { ...this.state, updatedAt: now };
  }

  private ensureDraft(now: Date, createdBy: CreatedBy): void {
    if (!this.line.draft) this.openDraft({ now, createdBy });
  }

  /** The entry the draft's base holds for a cost (what a staged value is compared with). */
  private baseEntryOf(costId: string): CostEntry | undefined {
    const baseId = this.line.draft?.baseVersionId;
    return baseId ? this.flow.contentOf(baseId)?.entries.find((entry) => entry.costId === costId) : undefined;
  }

  /** Where each cost is (the draft, the head, the queue), for the costs' states to follow. */
  private recomputeCostStates(now: Date): void {
    const draft = this.line.draft;
    const live = [this.line.head, ...this.line.queue].filter((row): row is VersionRecord => row !== undefined);
    const costIds = (versionId: string) => this.flow.contentOf(versionId)?.entries.map((entry) => entry.costId) ?? [];
    this.costs.recomputeStates(
      { draft: draft ? new Set(costIds(draft.id)) : null, live: new Set(live.flatMap((row) => costIds(row.id))) },
      now,
    );
  }

  private assertNotArchived(): void {
    this.flow.assertNotArchived(this.archived);
  }
}

function laterOf(current: Date | null, effectiveAt: Date, now: Date): Date | null {
  if (effectiveAt.getTime() <= now.getTime()) return current;
  return current && current.getTime() >= effectiveAt.getTime() ? current : effectiveAt;
}
