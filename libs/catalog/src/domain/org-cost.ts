import { newId } from '@app/shared-kernel';
import { CatalogErrors } from './catalog-errors';
import { applyDisplay, CostDisplay, CostDisplayChanges, CostRevision, CostValue } from './cost-value';

export interface OrgCostState {
  organizationId: string;
  workspaceId: string;
  id: string;
  key: string;
  state: 'active' | 'retired';
  display: CostDisplay;
  currentRevisionNo: number;
  createdAt: Date;
  updatedAt: Date;
  retiredAt: Date | null;
}

type RevisionAuthor = CostRevision['createdBy'];

/**
 * An ORG-scoped cost: visible to every product of its workspace. Each value save appends an
 * immutable revision with its `effective_at`; retire and restore are revisions too, so the
 * history says who changed what price when.
 */
export class OrgCost {
  private readonly appended: CostRevision[] = [];

  private constructor(private state: OrgCostState) {}

  static restore(state: OrgCostState): OrgCost {
    return new OrgCost({ ...state });
  }

  static create(input: {
    organizationId: string;
    workspaceId: string;
    key: string;
    value: CostValue;
    display: CostDisplay;
    now: Date;
    createdBy: RevisionAuthor;
  }): OrgCost {
    const cost = new OrgCost({
      organizationId: input.organizationId,
      workspaceId: input.workspaceId,
      id: newId(),
      key: input.key,
      state: 'active',
      display: input.display,
      currentRevisionNo: 0,
      createdAt: input.now,
      updatedAt: input.now,
      retiredAt: null,
    });
    cost.append('value', input.value, input.now, input.now, input.createdBy);
    return cost;
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<OrgCostState> {
    return this.state;
  }

  /** Revisions written since load. */
  get newRevisions(): readonly CostRevision[] {
    return this.appended;
  }

  saveValue(value: CostValue, effectiveAt: Date, now: Date, createdBy: RevisionAuthor): CostRevision {
    this.assertActive();
    return this.append('value', value, effectiveAt, now, createdBy);
  }

  editDisplay(changes: CostDisplayChanges, now: Date): void {
    this.assertActive();
    this.state = { ...this.state, display: applyDisplay(this.state.display, changes), updatedAt: now };
  }

  retire(now: Date, createdBy: RevisionAuthor): CostRevision {
    this.assertActive();
    this.state = { ...this.state, state: 'retired', retiredAt: now };
    return this.append('retire', null, now, now, createdBy);
  }

  /**
   * The "head" of an ORG key is the newest ORG cost ever created with it (model §9.1): only
   * that cost can come back; once another took the key, the key is no longer this cost's.
   */
  restoreAsKeyHead(isKeyHead: boolean, now: Date, createdBy: RevisionAuthor): CostRevision | null {
    if (this.state.state === 'active') return null;
    if (!isKeyHead) {
      throw CatalogErrors.COST_KEY_NOT_IN_HEAD.create(
        `Another ORG cost has taken the key "${this.state.key}" since this one was retired.`,
        {
          details: { key: this.state.key },
        },
      );
    }
    this.state = { ...this.state, state: 'active', retiredAt: null };
    return this.append('restore', null, now, now, createdBy);
  }

  private assertActive(): void {
    if (this.state.state !== 'active') {
      throw CatalogErrors.COST_NOT_ACTIVE.create('This cost is retired; restore it before changing it.');
    }
  }

  private append(
    kind: CostRevision['kind'],
    value: CostValue | null,
    effectiveAt: Date,
    now: Date,
    createdBy: RevisionAuthor,
  ): CostRevision {
    const revision: CostRevision = {
      id: newId(),
      costId: this.state.id,
      revisionNo: this.state.currentRevisionNo + 1,
      kind,
      value,
      effectiveAt,
      createdBy,
      createdAt: now,
    };
    this.state = { ...this.state, currentRevisionNo: revision.revisionNo, updatedAt: now };
    this.appended.push(revision);
    return revision;
  }
}
