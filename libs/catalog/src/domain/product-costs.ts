import { newId, SharedErrors } from '@app/shared-kernel';
import { catalogNotFound, CatalogErrors } from './catalog-errors';
import { applyDisplay, CostDisplay, CostDisplayChanges, CostRevision, CostValue } from './cost-value';
import { CreatedBy } from './version-line';

export type ProductCostState = 'active' | 'removed_in_draft' | 'removed';

export interface ProductCost {
  id: string;
  key: string;
  state: ProductCostState;
  display: CostDisplay;
  currentRevisionNo: number;
  /** A frozen version (queued, live or archived) references it: it can no longer be hard-deleted. */
  released: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A product's PRODUCT costs and their lifecycle (catalog model §3.4): created with a first
 * revision, revised, released once a frozen version holds them, their state following where the
 * product's versions carry them, deleted when they never reached a frozen version. The product
 * decides what its versions hold; this keeps the cost rows and revisions that follow from it.
 */
export class ProductCosts {
  private readonly dirty = new Set<string>();
  private readonly deleted = new Set<string>();
  private readonly newRevisions: CostRevision[] = [];

  constructor(private readonly costs: Map<string, ProductCost>) {}

  get(costId: string): ProductCost | undefined {
    const cost = this.costs.get(costId);
    return cost && !this.deleted.has(costId) ? cost : undefined;
  }

  get all(): ProductCost[] {
    return [...this.costs.values()].filter((cost) => !this.deleted.has(cost.id));
  }

  require(costId: string): ProductCost {
    const cost = this.get(costId);
    if (!cost) throw catalogNotFound(undefined, 'cost');
    return cost;
  }

  /** For the repository: what changed since load. */
  get pendingWrites() {
    return {
      costs: [...this.dirty].filter((id) => !this.deleted.has(id)).map((id) => this.costs.get(id)!),
      deletedCosts: [...this.deleted],
      revisions: this.newRevisions,
    };
  }

  /** A new active cost with its first revision; 409 when a cost not removed holds the key. */
  create(input: { key: string; value: CostValue; display: CostDisplay; effectiveAt: Date; now: Date; createdBy: CreatedBy }): {
    cost: ProductCost;
    revision: CostRevision;
  } {
    if (this.all.some((cost) => cost.key === input.key && cost.state !== 'removed')) {
      throw SharedErrors.ALREADY_EXISTS.create(`This product already has a cost with the key "${input.key}".`, { param: 'key' });
    }
    const cost: ProductCost = {
      id: newId(),
      key: input.key,
      state: 'active',
      display: input.display,
      currentRevisionNo: 0,
      released: false,
      createdAt: input.now,
      updatedAt: input.now,
    };
    this.put(cost);
    const revision = this.appendRevision(cost, input.value, input.effectiveAt, input.now, input.createdBy);
    return { cost: this.costs.get(cost.id)!, revision };
  }

  appendRevision(cost: ProductCost, value: CostValue, effectiveAt: Date, now: Date, createdBy: CreatedBy): CostRevision {
    const revision: CostRevision = {
      id: newId(),
      costId: cost.id,
      revisionNo: cost.currentRevisionNo + 1,
      kind: 'value',
      value,
      effectiveAt,
      createdBy: { type: createdBy.type, id: createdBy.id },
      createdAt: now,
    };
    this.put({ ...this.costs.get(cost.id)!, currentRevisionNo: revision.revisionNo, updatedAt: now });
    this.newRevisions.push(revision);
    return revision;
  }

  editDisplay(costId: string, changes: CostDisplayChanges, now: Date): void {
    const cost = this.require(costId);
    if (cost.state === 'removed')
      throw CatalogErrors.COST_NOT_ACTIVE.create('This cost has left billing; it can no longer be edited.');
    this.put({ ...cost, display: applyDisplay(cost.display, changes), updatedAt: now });
  }

  /** A cost never released, removed: deleted with the revisions staged for it. */
  deleteUnreleased(costId: string): void {
    this.deleted.add(costId);
    this.newRevisions.splice(0, this.newRevisions.length, ...this.newRevisions.filter((revision) => revision.costId !== costId));
  }

  /** A frozen version holds these costs: from now on they can only leave billing, never be deleted. */
  markReleased(costIds: string[]): void {
    for (const costId of costIds) {
      const cost = this.costs.get(costId);
      if (cost && !cost.released) this.put({ ...cost, released: true });
    }
  }

  /** Model §3.4: a cost's state follows where it is: the draft (when one is open), the head and the queue. */
  recomputeStates(where: { draft: Set<string> | null; live: Set<string> }, now: Date): void {
    for (const cost of this.all) {
      let state: ProductCostState;
      if (where.draft) state = where.draft.has(cost.id) ? 'active' : where.live.has(cost.id) ? 'removed_in_draft' : 'removed';
      else state = where.live.has(cost.id) ? 'active' : 'removed';
      if (state === 'removed' && !cost.released) {
        // Created in a draft that is gone: it never reached a frozen version.
        this.deleted.add(cost.id);
        continue;
      }
      if (state !== cost.state) this.put({ ...cost, state, updatedAt: now });
    }
  }

  private put(cost: ProductCost): void {
    this.costs.set(cost.id, cost);
    this.dirty.add(cost.id);
  }
}
