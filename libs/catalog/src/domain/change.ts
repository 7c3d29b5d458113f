import { newId, SharedErrors } from '@app/shared-kernel';

import { CreatedBy } from './version-line';

export type ChangeStatus = 'pending' | 'applied' | 'canceled' | 'failed';

export interface Pin {
  productId: string;
  productVersionId: string;
}

export interface ChangeState {
  organizationId: string;
  workspaceId: string;
  id: string;
  subjectKind: 'plan' | 'product';
  subjectId: string;
  stagedVersionId: string;
  status: ChangeStatus;
  scheduledFor: Date | null;
  pins: Pin[];
  releaseName: string | null;
  releaseNote: string | null;
  resultVersionId: string | null;
  resultVersion: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdBy: CreatedBy;
  createdAt: Date;
  appliedAt: Date | null;
  canceledAt: Date | null;
}

/** A `catalog.publish_version` request: applied at once, or pending until its release fires. */
export class Change {
  private constructor(private state: ChangeState) {}

  static restore(state: ChangeState): Change {
    return new Change({ ...state });
  }

  static request(
    input: Omit<
      ChangeState,
      'id' | 'status' | 'resultVersionId' | 'resultVersion' | 'errorCode' | 'errorMessage' | 'appliedAt' | 'canceledAt'
    >,
  ): Change {
    return new Change({
      ...input,
      id: newId(),
      status: 'pending',
      resultVersionId: null,
      resultVersion: null,
      errorCode: null,
      errorMessage: null,
      appliedAt: null,
      canceledAt: null,
    });
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<ChangeState> {
    return this.state;
  }

  applied(version: { id: string; version: number }, at: Date): void {
    this.transition('applied');
    this.state = { ...this.state, status: 'applied', resultVersionId: version.id, resultVersion: version.version, appliedAt: at };
  }

  failed(error: { code: string; message: string }): void {
    this.transition('failed');
    this.state = { ...this.state, status: 'failed', errorCode: error.code, errorMessage: error.message };
  }

  cancel(at: Date): void {
    this.transition('canceled');
    this.state = { ...this.state, status: 'canceled', canceledAt: at };
  }

  private transition(to: ChangeStatus): void {
    if (this.state.status !== 'pending') {
      throw SharedErrors.INVALID_STATUS_TRANSITION.create(`A change that is ${this.state.status} cannot become ${to}.`, {
        details: { from: this.state.status, to, allowed: [] },
      });
    }
  }
}
